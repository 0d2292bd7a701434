package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// The Plain functions write the text of MCP tool results: every value a
// reader needs, in words a model reads without a schema. They carry the
// room's text as it is; a text of several lines is indented under its
// field so that it cannot pass for a field of its own.

// PlainTime writes t as the plain text writes times: UTC, RFC 3339.
func PlainTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Count writes n and word, in the plural unless n is 1: "1 byte",
// "3 bytes".
func Count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// PlainHandoff writes a handoff as indented lines, every field in full:
// status, next action, then each artifact, open question and don't.
func PlainHandoff(h stick.Handoff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  status: %s\n  next_action: %s", indent(h.Status), indent(h.NextAction))
	for _, a := range h.Artifacts {
		loc := a.Path
		if len(a.Lines) == 2 {
			loc = fmt.Sprintf("%s:%d-%d", a.Path, a.Lines[0], a.Lines[1])
		}
		fmt.Fprintf(&b, "\n  artifact (%s): %s", a.Role, loc)
		if a.Note != "" {
			fmt.Fprintf(&b, " - %s", a.Note)
		}
	}
	for _, q := range h.OpenQuestions {
		fmt.Fprintf(&b, "\n  open question: %s", indent(q))
	}
	for _, d := range h.DoNot {
		fmt.Fprintf(&b, "\n  do not: %s", indent(d))
	}
	return b.String()
}

// PlainEvents writes a line per event, each starting with a newline, and
// the event's handoff under it: number, time, turn, type, members, reason,
// note type, the document write it recorded, the event it refers to, and
// its text.
func PlainEvents(evs []stick.Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "\n#%d %s turn %d %s", e.Seq, PlainTime(e.CreatedAt), e.TurnID, e.Type)
		if e.From != "" {
			fmt.Fprintf(&b, " by %s", e.From)
		}
		if e.To != "" {
			fmt.Fprintf(&b, " to %s", e.To)
		}
		if r := Removal(e); r != "" {
			fmt.Fprintf(&b, " (%s)", r)
		} else if e.Reason != "" {
			fmt.Fprintf(&b, " (%s)", e.Reason)
		}
		if e.MessageType != "" && e.MessageType != stick.DefaultNoteType {
			fmt.Fprintf(&b, " (%s)", e.MessageType)
		}
		if e.Channel != "" {
			fmt.Fprintf(&b, " #%s", e.Channel)
		}
		if len(e.Recipients) > 0 {
			fmt.Fprintf(&b, " to %s", strings.Join(e.Recipients, ", "))
		}
		if e.Interrupt {
			b.WriteString(" [interrupt]")
		}
		if d := docChange(e); d != "" {
			fmt.Fprintf(&b, " (%s)", d)
		}
		if e.Ref != 0 {
			fmt.Fprintf(&b, " [ref #%d]", e.Ref)
		}
		if e.Text != "" {
			fmt.Fprintf(&b, ": %s", indent(e.Text))
		}
		if e.Handoff != nil {
			fmt.Fprintf(&b, "\n%s", PlainHandoff(*e.Handoff))
		}
	}
	return b.String()
}

// docChange describes the document write an event recorded: a doc event's
// version, op and section, or the version a close wrote its conclusion
// into; "" for other events.
func docChange(e stick.Event) string {
	if c, ok := e.CloseData(); ok && c.DocVersion != 0 {
		return fmt.Sprintf("conclusion written to document version %d", c.DocVersion)
	}
	d, ok := e.DocData()
	switch {
	case ok && d.Section != "":
		return fmt.Sprintf("document version %d, %s under %s", d.Version, d.Op, d.Section)
	case ok:
		return fmt.Sprintf("document version %d, %s", d.Version, d.Op)
	}
	return ""
}

// PlainDocVersion describes one document version in a line: op, author,
// time, size and the event that recorded it.
func PlainDocVersion(v stick.DocVersion) string {
	s := fmt.Sprintf("version %d: %s by %s at %s, %s", v.Version, v.Op, v.Author, PlainTime(v.CreatedAt), Count(v.Size, "byte"))
	if v.EventSeq != 0 {
		s += fmt.Sprintf(", event %d", v.EventSeq)
	}
	return s
}

// PlainDocument writes a room's document: its version line and its content
// between markers, or that it was never written.
func PlainDocument(d stick.Document) string {
	var b strings.Builder
	if d.Version == 0 {
		fmt.Fprintf(&b, "room_id %s has no document yet (version 0, empty).", d.RoomID)
	} else {
		fmt.Fprintf(&b, "room_id %s document %s.\n--- content ---\n%s", d.RoomID, PlainDocVersion(d.DocVersion), d.Content)
		if !strings.HasSuffix(d.Content, "\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "--- end of version %d ---", d.Version)
	}
	return b.String()
}

// indent indents the lines after the first of a text of several lines
// under the field it is the value of.
func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }
