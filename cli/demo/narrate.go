package demo

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// header introduces the run.
func (d *driver) header() {
	fmt.Fprintf(d.log, "stick demo: %d agent processes take turns in a throwaway workspace; %s gets killed mid-turn\n", len(roster), victim)
	fmt.Fprintf(d.log, "  workspace  %s\n  database   %s\n\n", d.ws, d.st.Path())
}

// say prints one line of the story: when, who, what.
func (d *driver) say(at time.Time, who, format string, args ...any) {
	ms := float64(at.Sub(d.begun).Microseconds()) / 1000
	fmt.Fprintf(d.log, "%7.1fms  %-10s  %s\n", ms, who, fmt.Sprintf(format, args...))
}

// more prints a continuation of the previous line of the story.
func (d *driver) more(format string, args ...any) {
	fmt.Fprintf(d.log, "%23s%s\n", "", fmt.Sprintf(format, args...))
}

// tell narrates an agent's step, and acts on it, in the order things
// happened rather than the order the lines arrived. Each agent's steps are
// told in the order it printed them; a grant waits until the release it
// follows is told (the releaser reports after its Release call returns, and
// the next holder may be faster); among the steps that may be told, the
// earliest goes first.
func (d *driver) tell(ctx context.Context, s step) error {
	d.queued[s.Agent] = append(d.queued[s.Agent], s)
	for {
		next := ""
		for name, q := range d.queued {
			if len(q) == 0 || !d.ready(q[0]) {
				continue
			}
			if b := d.queued[next]; next == "" || q[0].At < b[0].At || (q[0].At == b[0].At && name < next) {
				next = name
			}
		}
		if next == "" {
			return nil
		}
		s := d.queued[next][0]
		d.queued[next] = d.queued[next][1:]
		if err := d.tellNow(ctx, s); err != nil {
			return err
		}
	}
}

// ready reports whether s may be told: a grant only after the release it
// follows, the first release only after every join (the opener waits for
// them), and a takeover read in the log only after the takeover itself.
func (d *driver) ready(s step) bool {
	switch s.Kind {
	case stepGrant:
		return s.Handoff == nil || d.told[s.Turn-1]
	case stepReleased:
		return s.Turn > 1 || d.joins == len(roster)
	case stepSawTakeover:
		return d.tookOver[s.Turn]
	}
	return true
}

// tellNow narrates s and acts on it.
func (d *driver) tellNow(ctx context.Context, s step) error {
	switch s.Kind {
	case stepReleased:
		d.told[s.Turn] = true
	case stepTakeover:
		d.tookOver[s.Turn] = true
	case stepJoined:
		d.joins++
	}
	d.narrate(s)
	return d.act(ctx, s)
}

// flushAll narrates the steps still held back when the run ends.
func (d *driver) flushAll() {
	var rest []step
	for _, q := range d.queued {
		rest = append(rest, q...)
	}
	slices.SortStableFunc(rest, func(a, b step) int { return cmp.Compare(a.At, b.At) })
	for _, s := range rest {
		d.narrate(s)
	}
	clear(d.queued)
}

// narrate tells what an agent's step means.
func (d *driver) narrate(s step) {
	at := time.UnixMicro(s.At)
	say := func(format string, args ...any) { d.say(at, s.Agent, format, args...) }
	switch s.Kind {
	case stepJoined:
		if s.Turn > 0 {
			say("joined (pid %d): the room is new, so it claims turn %d at once", s.PID, s.Turn)
		} else {
			say("joined (pid %d), waits for its turn", s.PID)
		}
	case stepGrant:
		switch {
		case s.Handoff == nil:
			say("turn %d (%s), the first: no handoff yet; it waits for the others to join before it releases", s.Turn, s.Reason)
		case s.Problem != "":
			say("turn %d (%s): handoff #%d from %s does NOT match the workspace: %s", s.Turn, s.Reason, s.Seq, s.From, s.Problem)
		default:
			say("turn %d (%s): handoff #%d from %s, read back %s", s.Turn, s.Reason, s.Seq, s.From, quoteLines(s.Checked))
		}
	case stepReleased:
		if s.To == "" {
			say("wrote %s:%d, released turn %d with handoff #%d; nobody is left to reserve it for", notesFile, s.Line, s.Turn, s.Seq)
		} else {
			say("wrote %s:%d, released turn %d to %s with handoff #%d", notesFile, s.Line, s.Turn, s.To, s.Seq)
		}
	case stepHolding:
		say("turn %d: noted %q, enters its critical section ... and stops there, holding the stick", s.Turn, s.Text)
	case stepOwnerGone:
		say("wait_for_turn: takeover_available, reason %s (%s) %s", s.Reason, s.From, d.sinceKill(at))
	case stepTakeover:
		say("took over: turn %d is now its own, revoked from %s (reason %s)", s.Turn, s.From, s.Reason)
	case stepTakeoverLost:
		say("tried to take over as well and lost: %s", s.Code)
	case stepSawTakeover:
		say("reads in the log: %s took over turn %d from %s (reason %s) %s", s.To, s.Turn, s.From, s.Reason, d.sinceKill(at))
	case stepRecovered:
		d.narrateRecovery(at, s)
	case stepLeft:
		say("the plan is done: left the room")
	case stepClosed:
		say("saw the room close, exits")
	case stepViolation:
		say("VIOLATION: %s", s.Text)
	default:
		say("%s", s.Kind)
	}
}

// narrateRecovery tells what a member that took over learned from the log.
func (d *driver) narrateRecovery(at time.Time, s step) {
	r := s.Recovery
	if r == nil {
		d.say(at, s.Agent, "took over turn %d but reported no recovery", s.Turn)
		return
	}
	d.say(at, s.Agent, "read the log to recover %s's turn %d (it left no handoff):", r.Dead, r.DeadTurn)
	if r.HandoffSeq != 0 {
		d.more("recent handoff #%d from %s: %q", r.HandoffSeq, r.HandoffFrom, r.Status)
		d.more("  next action: %q", r.Next)
	}
	if r.GrantSeq != 0 {
		d.more("%s was granted turn %d by event #%d", r.Dead, r.DeadTurn, r.GrantSeq)
	}
	for _, n := range r.Notes {
		d.more("%s noted (#%d): %q", r.Dead, n.Seq, n.Text)
	}
	if r.Marker != "" {
		d.more("its critical-section file %s still said %q: removed", markerFile, r.Marker)
	}
}

// sinceKill says how long after the SIGKILL at was.
func (d *driver) sinceKill(at time.Time) string {
	if d.killedAt.IsZero() {
		return ""
	}
	return ms(at.Sub(d.killedAt)) + " after the SIGKILL"
}

// showRoom prints the room's state under a title, indented.
func (d *driver) showRoom(title string, st stick.RoomStatus) {
	print := d.o.PrintRoom
	if print == nil {
		print = printRoom
	}
	var b bytes.Buffer
	print(&b, st)
	fmt.Fprintf(d.log, "\n  %s\n", title)
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		fmt.Fprintf(d.log, "    %s\n", line)
	}
	fmt.Fprintln(d.log)
}

// printRoom is the compact room printer used when Options.PrintRoom is nil.
func printRoom(w io.Writer, st stick.RoomStatus) {
	fmt.Fprintf(w, "room %s at %s: %s, turn %d\n", render.Line(st.RoomID), render.Line(st.CanonicalPath), st.State, st.TurnID)
	if st.Owner != "" {
		fmt.Fprintf(w, "holder %s\n", render.Line(st.Owner))
	}
	if st.ReservedFor != "" {
		fmt.Fprintf(w, "next   %s\n", render.Line(st.ReservedFor))
	}
	for _, m := range st.Members {
		role := ""
		if m.TurnRole != "" {
			role = ", " + m.TurnRole
		}
		fmt.Fprintf(w, "  %d %s (%s%s)\n", m.Ordinal, render.Line(m.AgentID), render.Line(m.Status), render.Line(role))
	}
	if h := st.PendingHandoff; h != nil && h.Handoff != nil {
		fmt.Fprintf(w, "pending handoff #%d from %s: %s\n", h.Seq, render.Line(h.From), render.Line(h.Handoff.Status))
	}
}

// quoteLines quotes the lines a handoff pointed at, for one line of output.
func quoteLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = fmt.Sprintf("%q", l)
	}
	return strings.Join(lines, ", ")
}
