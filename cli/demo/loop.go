package demo

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/stickhq/stick/stick"
)

// run starts the first agent and reacts to what the agents report until
// they have all exited after the room closed.
func (d *driver) run(ctx context.Context) error {
	if err := d.startAgent(d.config(roster[0])); err != nil {
		return err
	}
	timeout := time.NewTimer(d.o.Timeout)
	defer timeout.Stop()
	for !d.finished() {
		if err := ctx.Err(); err != nil {
			return stick.AsError(err)
		}
		select {
		case <-ctx.Done():
			return stick.AsError(ctx.Err())
		case <-timeout.C:
			return stick.Errorf(stick.CodeInternal, "demo: it did not finish within %v; the last step was %s", d.o.Timeout, d.lastStep())
		case m := <-d.msgs:
			if err := d.handle(ctx, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// config is the command line of the named agent.
func (d *driver) config(name string) agentConfig {
	c := agentConfig{name: name, workspace: string(d.ws), roster: roster, lastTurn: lastTurn, open: name == roster[0]}
	if name == victim {
		c.stopOn = 2
	}
	return c
}

// finished reports whether the room closed and every agent exited.
func (d *driver) finished() bool {
	if d.closeSeq == 0 || len(d.children) < len(roster) {
		return false
	}
	for _, c := range d.children {
		if !c.exited {
			return false
		}
	}
	return true
}

// handle reacts to one message of an agent.
func (d *driver) handle(ctx context.Context, m message) error {
	c := m.c
	if m.exit {
		return d.exited(c)
	}
	if m.step == nil {
		return stick.Errorf(stick.CodeInternal, "demo: %s printed %q%s", c.cfg.name, m.raw, stderrNote(c))
	}
	s := *m.step
	s.Agent = c.cfg.name // who the process is, whatever the line says
	d.steps = append(d.steps, s)
	switch s.Kind {
	case stepJoined:
		c.pid = s.PID
		if d.room == "" {
			d.room = s.Room
		}
	case stepClosed:
		c.closed = true
	}
	return d.tell(ctx, s)
}

// act does the driver's part after an agent's step is told: start the next
// agent after a join, kill the victim once it holds the stick mid-turn,
// close the room once the survivors are done.
func (d *driver) act(ctx context.Context, s step) error {
	switch s.Kind {
	case stepJoined:
		if n := len(d.children); n < len(roster) {
			return d.startAgent(d.config(roster[n]))
		}
	case stepHolding:
		return d.kill(ctx, d.child(s.Agent), s)
	case stepViolation:
		return stick.Errorf(stick.CodeInternal, "demo check one_holder_at_a_time failed: %s: %s", s.Agent, s.Text)
	case stepLeft:
		d.left[s.Agent] = true
		if len(d.left) == len(roster)-1 {
			return d.closeRoom(ctx)
		}
	}
	return nil
}

// child returns the agent process named name.
func (d *driver) child(name string) *child {
	for _, c := range d.children {
		if c.cfg.name == name {
			return c
		}
	}
	return nil
}

// exited records a child's exit; only the victim after its SIGKILL and the
// others after the room closed may exit.
func (d *driver) exited(c *child) error {
	c.exited, c.state = true, c.p.State()
	switch {
	case c.cfg.name == victim && !d.killedAt.IsZero():
		return nil
	case c.closed && c.state != nil && c.state.Success():
		return nil
	}
	return stick.Errorf(stick.CodeInternal, "demo: %s (pid %d) exited early (%v)%s", c.cfg.name, c.p.PID(), c.state, stderrNote(c))
}

// kill SIGKILLs the victim while it holds the stick, after showing the room.
func (d *driver) kill(ctx context.Context, c *child, s step) error {
	if c.cfg.name != victim || !d.killedAt.IsZero() {
		return stick.Errorf(stick.CodeInternal, "demo: %s stopped mid-turn, but only %s was told to", c.cfg.name, victim)
	}
	d.heldTurn = s.Turn
	st, err := d.svc.RoomState(ctx, d.room)
	if err != nil {
		return err
	}
	if st.LeaseExpires != nil {
		d.leaseEnd = *st.LeaseExpires
	}
	d.showRoom(fmt.Sprintf("the room while %s holds turn %d:", victim, s.Turn), st)
	d.killedAt = time.Now()
	if err := c.p.Signal(os.Kill); err != nil {
		return stick.Errorf(stick.CodeInternal, "demo: kill %s: %v", victim, err).Wrap(err)
	}
	d.say(d.killedAt, "driver", "SIGKILL %s (pid %d) in the middle of turn %d; its lease would have run for %s more",
		victim, c.p.PID(), s.Turn, d.leaseEnd.Sub(d.killedAt).Round(time.Second))
	return nil
}

// closeRoom closes the room once the survivors are done: the driver joins
// as a one-shot member and closes with a conclusion, which ends the agents.
func (d *driver) closeRoom(ctx context.Context) error {
	st, err := d.svc.RoomState(ctx, d.room)
	if err != nil {
		return err
	}
	if st.PendingHandoff != nil {
		d.pending = st.PendingHandoff.Seq
	}
	d.showRoom("the room after the last turn:", st)
	if _, err := d.svc.JoinPath(ctx, director, stick.JoinRequest{Path: string(d.ws)}); err != nil {
		return err
	}
	conclusion := fmt.Sprintf("%d turns by %d agents; %s was killed holding turn %d and %s took over (owner_gone) and finished its work",
		st.TurnID, len(roster), victim, d.heldTurn, d.taker())
	called := time.Now()
	res, err := d.svc.Close(ctx, director, d.room, "the demo's plan is complete", conclusion)
	if err != nil {
		return err
	}
	d.closeSeq = res.EventSeq
	d.say(called, "driver", "closed the room (event #%d): %s", res.EventSeq, conclusion)
	return nil
}

// taker returns the agent whose takeover committed, "" if none did.
func (d *driver) taker() string {
	for _, s := range d.steps {
		if s.Kind == stepTakeover {
			return s.Agent
		}
	}
	return ""
}

// lastStep describes the newest step, for a timeout's error.
func (d *driver) lastStep() string {
	if len(d.steps) == 0 {
		return "none"
	}
	s := d.steps[len(d.steps)-1]
	return fmt.Sprintf("%s %s (turn %d)", s.Agent, s.Kind, s.Turn)
}

// stderrNote returns a child's stderr for an error message, or "".
func stderrNote(c *child) string {
	if s := c.p.Stderr(); s != "" {
		return "; its stderr:\n" + s
	}
	return ""
}
