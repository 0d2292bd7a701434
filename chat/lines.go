package chat

import (
	"strings"

	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// The lines of the conversation: each event of the log as the console
// shows it. A member's text loses its terminal escape sequences
// (printable.StripEscapes), and its other controls are written out visibly
// (render.Text for several lines, render.Line for names and reasons), so
// nothing a member writes acts on the terminal.

// timeLayout is how the console writes an event's time: local, to the second.
const timeLayout = "15:04:05"

// indent starts the lines after the first of a note, and the delivery
// notices under it, so they cannot pass for lines of their own.
const indent = "    "

// isTurnEvent reports whether events of type t are the turn events that
// /events shows and hides: claims, takeovers, joins, leaves, and the
// room's housekeeping (document writes, policy, order, concluder).
func isTurnEvent(t stick.EventType) bool {
	switch t {
	case stick.EventNote, stick.EventRelease, stick.EventPass, stick.EventClose:
		return false
	}
	return true
}

// compact is a member's text of several lines made safe and written on
// one line: its runs of white space (newlines too) as one space.
func compact(s string) string {
	return strings.Join(strings.Fields(render.Text(printable.StripEscapes(s))), " ")
}

// noteText is a note's text made safe, as lines; tabs become spaces, as
// the console lays out lines by their width.
func noteText(s string) []string {
	return strings.Split(strings.ReplaceAll(render.Text(printable.StripEscapes(s)), "\t", indent), "\n")
}

// name is how the console names a member: its handle, else its agent id,
// made safe and in the colour of its harness. Display names, which two
// sessions of one harness share, are shown by /who.
func (m *Model) name(agentID string) string {
	n := agentID
	if mem, ok := m.members[agentID]; ok && mem.Handle != "" {
		n = mem.Handle
	}
	return m.pal.member(agentID, render.Line(printable.StripEscapes(n)))
}

// names is name of each of ids, joined with commas.
func (m *Model) names(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = m.name(id)
	}
	return strings.Join(out, ", ")
}

// eventLines is what the conversation shows of e: nothing for a turn event
// while they are hidden.
func (m *Model) eventLines(e stick.Event) []string {
	if isTurnEvent(e.Type) && !m.showTurns {
		return nil
	}
	ts := m.pal.dim(e.CreatedAt.In(m.loc).Format(timeLayout)) + " "
	from := m.name(e.From)
	switch e.Type {
	case stick.EventNote:
		head := ts
		if e.Interrupt {
			head += m.pal.warn("!") + " "
		}
		head += from
		if len(e.Recipients) > 0 {
			head += " → " + m.names(e.Recipients)
		}
		text := noteText(e.Text)
		out := []string{head + ": " + text[0]}
		for _, l := range text[1:] {
			out = append(out, indent+l)
		}
		for _, d := range m.deliveries[e.Seq] {
			out = append(out, indent+m.pal.dim("→ ")+m.name(d.agent)+m.pal.dim(": "+m.deliveryState(d)))
		}
		return out
	case stick.EventRelease, stick.EventPass:
		line := ts + m.pal.bold("»") + " " + from
		switch {
		case e.Type == stick.EventPass:
			line += " passed the stick to " + m.name(e.To)
		case e.To != "":
			line += " released the stick, reserved for " + m.name(e.To)
		default:
			line += " released the stick"
		}
		if h := e.Handoff; h != nil {
			line += ": " + compact(h.Status)
			if next := compact(h.NextAction); next != "" {
				line += m.pal.dim(" · next: ") + next
			}
		}
		return []string{line}
	case stick.EventClose:
		line := ts + m.pal.warn("×") + " " + from + " closed the room"
		if e.Reason != "" {
			line += m.pal.dim(" (" + render.Line(printable.StripEscapes(e.Reason)) + ")")
		}
		if e.Text != "" {
			line += ": " + compact(e.Text)
		}
		return []string{line}
	}
	return []string{ts + m.pal.dim("·") + " " + m.turnEvent(e, from)}
}

// turnEvent is the compact line of a turn event, after its time.
func (m *Model) turnEvent(e stick.Event, from string) string {
	why := ""
	if e.Reason != "" {
		why = m.pal.dim(" (" + render.Line(printable.StripEscapes(e.Reason)) + ")")
	}
	switch e.Type {
	case stick.EventClaim:
		return from + m.pal.dim(" took the stick") + why
	case stick.EventTakeover:
		s := from + m.pal.dim(" took the stick over")
		if e.To != "" {
			s += m.pal.dim(" from ") + m.name(e.To)
		}
		return s + why
	case stick.EventJoin:
		return from + m.pal.dim(" joined")
	case stick.EventLeave:
		return from + m.pal.dim(" left")
	case stick.EventDoc:
		s := from + m.pal.dim(" wrote the document")
		if note := render.DocNote(e); note != "" {
			s += m.pal.dim(" (" + note + ")")
		}
		return s
	}
	return from + m.pal.dim(" "+render.Line(string(e.Type))) + why
}
