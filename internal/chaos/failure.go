package chaos

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stickhq/stick/stick"
)

// How much of a failed soak its error shows.
const (
	shownViolations = 20
	shownEvents     = 30
)

// failure builds the error of a failed soak: the seed, the violations, the
// command that reproduces it, where the data is, and the tails of the
// room's event log and of the check file.
func (d *driver) failure(violations []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "chaos soak failed with seed %d: %d violation(s)\n", d.o.Seed, len(violations))
	for i, v := range violations {
		if i == shownViolations {
			fmt.Fprintf(&b, "  ... and %d more\n", len(violations)-i)
			break
		}
		fmt.Fprintf(&b, "  - %s\n", v)
	}
	fmt.Fprintf(&b, "reproduce: %s\n", d.o.reproduce())
	b.WriteString("  (the seed fixes every random choice; scheduling still varies, so a rare failure may need a few runs)\n")
	kept := "data/rooms.sqlite, critical-section.log"
	if d.db.Postgres() {
		kept = "critical-section.log"
	}
	if d.o.Hub {
		kept += ", hub.log, proxies/*.log"
	}
	fmt.Fprintf(&b, "data kept in %s (%s)\n", d.root, kept)
	if d.db.Postgres() {
		fmt.Fprintf(&b, "the room's store kept: %s (drop it when done)\n", d.db)
	}
	tail := d.events[max(len(d.events)-shownEvents, 0):]
	fmt.Fprintf(&b, "last %d events of room %s:\n", len(tail), d.room)
	for _, ev := range tail {
		fmt.Fprintf(&b, "  %s\n", formatEvent(ev))
	}
	fmt.Fprintf(&b, "last %d lines of the check file:\n", len(d.sec.tail))
	for _, l := range d.sec.tail {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return errors.New(strings.TrimRight(b.String(), "\n"))
}

// formatEvent renders one event on one line, for people reading a failure.
func formatEvent(ev stick.Event) string {
	s := fmt.Sprintf("#%-5d %s turn %-4d %-8s %s", ev.Seq, ev.CreatedAt.Format("15:04:05.000"), ev.TurnID, ev.Type, ev.From)
	switch ev.Type {
	case stick.EventClaim:
		s += " (" + ev.Reason
		if ev.Ref != 0 {
			s += fmt.Sprintf(", received #%d", ev.Ref)
		}
		s += ")"
	case stick.EventTakeover:
		data, _ := ev.TakeoverData()
		s += fmt.Sprintf(" revoking %s (%s", ev.To, data.TakeoverReason)
		if ev.Ref != 0 {
			s += fmt.Sprintf(", pending #%d", ev.Ref)
		}
		s += ")"
	case stick.EventRelease, stick.EventPass:
		to := ev.To
		if to == "" {
			to = "(idle)"
		}
		s += " -> " + to
		if ev.Handoff != nil {
			s += fmt.Sprintf(" %q", ev.Handoff.Status)
		}
	case stick.EventLeave:
		if ev.To != "" {
			s += " (reserved for " + ev.To + ")"
		}
	}
	return s
}

// describeEvent is formatEvent, or "nothing" for an event that is missing.
func describeEvent(ev stick.Event, ok bool) string {
	if !ok {
		return "nothing"
	}
	return formatEvent(ev)
}

// describeRoom summarises a room's state for a violation.
func describeRoom(st stick.RoomStatus) string {
	return fmt.Sprintf("state %s, turn %d, owner %q, reserved for %q", st.State, st.TurnID, st.Owner, st.ReservedFor)
}
