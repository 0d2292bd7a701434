package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
)

// The Write functions write what the CLI's commands show of a room: an
// event of the log, a handoff, a room's state, a table. A Style marks the
// text up for where it is shown: the CLI's printer knows whether its
// terminal shows colours, a page would use its own tags, NoStyle marks up
// nothing. Every value of the room is made safe with the Safe functions
// first.

// Style marks up text for a device. Each method returns s marked up, or s
// itself.
type Style interface {
	// Bold emphasises s: a label, an id, an event's type, a table header.
	Bold(s string) string
	// Dim tones s down: a reason, a note on an artifact, a hint.
	Dim(s string) string
	// Warn marks s as calling for attention: an open takeover, a warning.
	Warn(s string) string
	// State marks s, a room's or a member's state (owned, active, gone,
	// ...), by how much it calls for action.
	State(s string) string
}

// NoStyle is the Style that marks up nothing.
var NoStyle Style = noStyle{}

type noStyle struct{}

func (noStyle) Bold(s string) string  { return s }
func (noStyle) Dim(s string) string   { return s }
func (noStyle) Warn(s string) string  { return s }
func (noStyle) State(s string) string { return s }

// WriteEvent writes an event of a room's log as a line (number, local
// time, turn, type, members, reason, note type, the document write it
// recorded, its text indented under it) and its handoff below.
func WriteEvent(w io.Writer, s Style, e stick.Event) {
	e = SafeEvent(e)
	line := fmt.Sprintf("#%-5d %s  turn %-4d %s", e.Seq, e.CreatedAt.Local().Format("2006-01-02 15:04:05"), e.TurnID, s.Bold(fmt.Sprintf("%-8s", e.Type)))
	if e.From != "" {
		line += " " + e.From
	}
	if e.To != "" {
		line += " -> " + e.To
	}
	reason := e.Reason
	if why, ok := e.TakeoverData(); ok && why.TakeoverReason != "" {
		reason = Line(string(why.TakeoverReason)) + ": " + reason
	}
	if r := Removal(e); r != "" {
		reason = r
	}
	if reason != "" {
		line += s.Dim(" (" + reason + ")")
	}
	if e.Type == stick.EventNote {
		var kind []string
		if e.MessageType != "" && e.MessageType != stick.DefaultNoteType {
			kind = append(kind, string(e.MessageType))
		}
		if e.Ref != 0 {
			kind = append(kind, fmt.Sprintf("re #%d", e.Ref))
		}
		if e.Channel != "" {
			kind = append(kind, "#"+e.Channel)
		}
		if len(kind) > 0 {
			line += s.Dim(" (" + strings.Join(kind, ", ") + ")")
		}
		if len(e.Recipients) > 0 {
			line += " -> " + strings.Join(e.Recipients, ", ")
			if e.Interrupt {
				line += s.Bold(" [interrupt]")
			}
		}
	}
	if note := DocNote(e); note != "" {
		line += s.Dim(" (" + note + ")")
	}
	if e.Text != "" {
		line += ": " + indent(e.Text)
	}
	fmt.Fprintln(w, line)
	if e.Handoff != nil {
		WriteHandoff(w, s, *e.Handoff)
	}
}

// WriteHandoff writes a handoff as indented lines: status, next action,
// then each artifact (role, path and lines, note), open question and
// don't.
func WriteHandoff(w io.Writer, s Style, h stick.Handoff) {
	h = SafeHandoff(h)
	fmt.Fprintf(w, "  %s %s\n", s.Bold("status:"), indent(h.Status))
	fmt.Fprintf(w, "  %s %s\n", s.Bold("next:  "), indent(h.NextAction))
	for _, a := range h.Artifacts {
		loc := a.Path
		if len(a.Lines) == 2 {
			loc = fmt.Sprintf("%s:%d-%d", a.Path, a.Lines[0], a.Lines[1])
		}
		line := fmt.Sprintf("  %-8s %s", a.Role, loc)
		if a.Note != "" {
			line += s.Dim("  " + indent(a.Note))
		}
		fmt.Fprintln(w, line)
	}
	for _, q := range h.OpenQuestions {
		fmt.Fprintf(w, "  question: %s\n", indent(q))
	}
	for _, d := range h.DoNot {
		fmt.Fprintf(w, "  do not:   %s\n", indent(d))
	}
}

// WriteState writes a room's state: where it is, its key when it names a
// repository, its state and turn, the holder and the reserved recipient
// with their deadlines in local time, an open takeover, a table of the
// members (their last call said relative to now), and the pending handoff.
func WriteState(w io.Writer, s Style, st stick.RoomStatus, now time.Time) {
	st = SafeStatus(st)
	fmt.Fprintf(w, "room %s %s\n", s.Bold(st.RoomID), stick.Where(st.CanonicalPath, st.RoomName))
	if st.RoomKey != "" && !workspace.IsLocalKey(st.RoomKey) {
		fmt.Fprintf(w, "key    %s\n", st.RoomKey)
	}
	fmt.Fprintf(w, "state  %s, turn %d\n", s.State(string(st.State)), st.TurnID)
	if st.Owner != "" {
		line := "holder " + s.Bold(st.Owner)
		if st.LeaseExpires != nil {
			line += ", lease until " + st.LeaseExpires.Local().Format("15:04:05")
		}
		fmt.Fprintln(w, line)
	}
	if st.ReservedFor != "" {
		line := "next   " + s.Bold(st.ReservedFor)
		if st.ClaimExpires != nil {
			line += ", may claim until " + st.ClaimExpires.Local().Format("15:04:05")
		}
		fmt.Fprintln(w, line)
	}
	if st.Takeover != "" {
		fmt.Fprintln(w, s.Warn("takeover available: "+Line(string(st.Takeover))))
	}
	if st.Concluder != "" {
		fmt.Fprintln(w, "concluder "+s.Bold(st.Concluder))
	}
	fmt.Fprintln(w)
	rows := make([][]string, 0, len(st.Members))
	for _, m := range st.Members {
		name, status := m.AgentID, s.State(m.Status)
		if m.Handle != "" {
			name += " @" + m.Handle
		}
		if m.Standby {
			status += " (standby)"
		}
		if m.Wake != nil && m.Wake.LastState != "" {
			status += ", woken: " + m.Wake.LastState
		}
		rows = append(rows, []string{fmt.Sprint(m.Ordinal), name, status, Dash(m.TurnRole), Ago(now, m.LastSeenAt)})
	}
	WriteTable(w, s, []string{"#", "MEMBER", "STATUS", "TURN", "LAST SEEN"}, rows)
	if h := st.PendingHandoff; h != nil && h.Handoff != nil {
		fmt.Fprintf(w, "\npending handoff from %s (event %d):\n", h.From, h.Seq)
		WriteHandoff(w, s, *h.Handoff)
	}
}

// WriteTable writes rows aligned in columns under a bold header. Widths
// count what a terminal shows, so marks of the Style in a cell (colour
// codes) do not shift the columns; trailing blanks are cut.
func WriteTable(w io.Writer, s Style, header []string, rows [][]string) {
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], visibleWidth(c))
			}
		}
	}
	line := func(cells []string, mark func(string) string) {
		var b strings.Builder
		for i, c := range cells {
			if i < len(cells)-1 {
				c += strings.Repeat(" ", widths[i]-visibleWidth(c)+2)
			}
			b.WriteString(mark(c))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(header, func(c string) string { return s.Bold(strings.TrimRight(c, " ")) + c[len(strings.TrimRight(c, " ")):] })
	for _, r := range rows {
		line(r, func(c string) string { return c })
	}
}

// visibleWidth is the number of characters of s a terminal shows: runes,
// without ANSI colour sequences.
func visibleWidth(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case esc:
			esc = r != 'm'
		case r == '\x1b':
			esc = true
		default:
			n++
		}
	}
	return n
}

// Ago says how long before now t was, coarsely, for tables: "just now",
// "42s ago", "5m ago", "3h ago" (up to 47), "2d ago"; "never" for the zero
// time.
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// Dash is s, or "-" for an empty cell of a table.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
