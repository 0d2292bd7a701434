package chaos

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/stick"
)

// child is one agent process. The driver's goroutine alone sets its
// fields after start; the process's reader goroutine only closes ready.
type child struct {
	slot int
	id   string
	pid  int
	p    *childproc.Proc
	// ready closes when the agent reports that it joined; p.Done when it
	// exited and was reaped and its messages were all taken.
	ready     chan struct{}
	readyOnce sync.Once
	// killed and stopping say why it may exit: the driver killed it, or
	// told it to stop.
	killed, stopping bool
}

// exited reports whether the child exited and was reaped.
func (c *child) exited() bool {
	select {
	case <-c.p.Done():
		return true
	default:
		return false
	}
}

// describe names the child and, once it exited, how, with its stderr.
func (c *child) describe() string {
	s := fmt.Sprintf("agent %s (pid %d)", c.id, c.pid)
	if c.exited() {
		s += " " + c.p.State().String()
	}
	if e := strings.TrimSpace(c.p.Stderr()); e != "" {
		s += "; stderr: " + e
	}
	return s
}

// start runs a new agent in slot, with a fresh agent id (a proven-dead id
// may not come back while others are active) and a seed from the driver's
// random source. Its messages go to onMessage as they come.
func (d *driver) start(ctx context.Context, slot int) error {
	gen := d.gens[slot]
	d.gens[slot]++
	cfg := agentConfig{
		data: d.data, repo: d.repo, check: d.checkPath,
		id: fmt.Sprintf("a%d.r%d", slot, gen), seed: d.rng.Uint64(),
	}
	cmd, err := reexec.Command(ctx, agentRole, cfg.args()...)
	if err != nil {
		return err
	}
	c := &child{slot: slot, id: cfg.id, ready: make(chan struct{})}
	c.p, err = childproc.Start(cmd, childproc.Options{Name: "agent " + c.id, StderrTail: 4 << 10,
		OnLine: func(line string) bool { d.onMessage(c, line); return true }})
	if err != nil {
		return fmt.Errorf("chaos: start agent %s: %w", c.id, err)
	}
	c.pid = c.p.PID()
	d.slots[slot] = c
	d.all = append(d.all, c)
	return nil
}

// onMessage records one message of c.
func (d *driver) onMessage(c *child, line string) {
	m, err := parseMessage(line)
	if err != nil {
		d.fail("agent %s: %v", c.id, err)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := &d.tally
	switch m.kind {
	case msgReady:
		c.readyOnce.Do(func() { close(c.ready) })
	case msgHanded:
		t.handed = append(t.handed, handed{agent: c.id, seq: m.seq, typ: m.typ, token: m.token})
	case msgStall:
		t.stalls++
	case msgDawdle:
		t.dawdles++
	case msgLost:
		t.errors[string(m.code)]++
		if m.when == lostEarly {
			d.failLocked("%s lost its lease of turn %d before the lease expired (%s: %s): someone took over a valid lease", c.id, m.turn, m.op, m.code)
		} else {
			t.lost++
		}
	case msgErr:
		t.errors[string(m.code)]++
		switch {
		case m.code == stick.CodeDBBusy:
			d.failLocked("db_busy reached a caller: %s's %s: %s", c.id, m.op, m.text)
		case !expectedError(m.op, m.code):
			d.failLocked("%s's %s failed with %s: %s", c.id, m.op, m.code, m.text)
		}
	}
}

// kill SIGKILLs c and reaps it, with a kill line in the check file before
// and a killed line, stamped with the time of the reap, after.
func (d *driver) kill(c *child) error {
	if err := d.appendCheck(killLine(c.id, c.pid)); err != nil {
		return err
	}
	c.killed = true
	_ = c.p.Signal(os.Kill) // one that exited already is reported below
	select {
	case <-c.p.Done():
	case <-time.After(stopTimeout):
		return fmt.Errorf("chaos: %s survived SIGKILL for %v", c.describe(), stopTimeout)
	}
	if runtime.GOOS != "windows" && c.p.State().ExitCode() != -1 {
		// Not ended by the signal: it had exited by itself just before.
		d.fail("%s exited by itself before the driver killed it", c.describe())
	}
	return d.appendCheck(killedLine(c.id, c.pid, time.Now()))
}

// checkExits records a violation for every current agent that exited
// although nobody killed it or told it to stop.
func (d *driver) checkExits() {
	for _, c := range d.slots {
		if c != nil && !c.killed && !c.stopping && c.exited() {
			d.fail("%s exited by itself", c.describe())
			c.killed = true // reported once
		}
	}
}

// stopAll tells every agent to stop (its stdin ends), gives them
// stopTimeout to finish their turns, and kills the rest.
func (d *driver) stopAll() {
	d.checkExits()
	var live []*child
	for _, c := range d.slots {
		if c != nil && !c.exited() {
			c.stopping = true
			_ = c.p.Stdin().Close()
			live = append(live, c)
		}
	}
	deadline := time.Now().Add(stopTimeout)
	for _, c := range live {
		select {
		case <-c.p.Done():
		case <-time.After(time.Until(deadline)):
		}
	}
	for _, c := range live {
		switch {
		case !c.exited():
			d.fail("%s did not stop within %v", c.describe(), stopTimeout)
			if err := d.kill(c); err != nil {
				d.fail("%v", err)
			}
		case !c.p.State().Success():
			d.fail("%s failed while stopping", c.describe())
		}
	}
}

// killAll kills and reaps every agent still running: the last word on
// every path out of a soak, so no agent outlives it. The messages an agent
// wrote before it died are still taken.
func (d *driver) killAll() {
	for _, c := range d.all {
		if !c.exited() {
			_ = c.p.Signal(os.Kill)
		}
	}
	for _, c := range d.all {
		_ = c.p.Close()
	}
}
