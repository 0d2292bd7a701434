package render

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// mdTime is how the markdown export writes times: local, to the second,
// as the event log does.
func mdTime(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

// Markdown writes a room's transcript as a markdown document for a
// reader who was not there: the room's state, where things stand (the
// latest handoff, open questions, decisions), the members, the document,
// then every event in order with its handoff in full. The output depends
// only on the transcript.
//
// The export's own structure (its headings, lists, table and fences) is
// the only text at the start of a line: what came from the room is made
// safe to print ([SafeTranscript]), a single-line field keeps its newlines
// escaped, a text of several lines is quoted line by line ("> "), and the
// document is fenced by a fence longer than any run of backticks in it, so
// no note, reason, path or document can write a heading, a list item, a
// table row or a fence that a reader would take for the export's.
func Markdown(w io.Writer, t stick.Transcript) {
	t = SafeTranscript(t)
	st := t.Room
	title := st.CanonicalPath
	if st.RoomName != "" {
		title = st.RoomName
	}
	fmt.Fprintf(w, "# Room %s\n\n", title)
	fmt.Fprintf(w, "Room `%s`, exported from stick at %s.", st.RoomID, mdTime(t.TakenAt))
	if t.After > 0 {
		fmt.Fprintf(w, " Only the events after #%d are included; earlier ones are left out (`--after %d`).", t.After, t.After)
	}
	fmt.Fprint(w, "\n\n")

	state := fmt.Sprintf("%s, turn %d", st.State, st.TurnID)
	fmt.Fprintf(w, "- **State:** %s\n", state)
	if st.Owner != "" {
		line := st.Owner
		if st.LeaseExpires != nil {
			line += ", lease until " + mdTime(*st.LeaseExpires)
		}
		fmt.Fprintf(w, "- **Holder:** %s\n", line)
	} else {
		fmt.Fprintf(w, "- **Holder:** none\n")
	}
	if st.ReservedFor != "" {
		line := st.ReservedFor
		if st.ClaimExpires != nil {
			line += ", may claim until " + mdTime(*st.ClaimExpires)
		}
		fmt.Fprintf(w, "- **Next:** %s\n", line)
	}
	if st.Takeover != "" {
		fmt.Fprintf(w, "- **Takeover available:** %s\n", Line(string(st.Takeover)))
	}
	if st.Concluder != "" {
		fmt.Fprintf(w, "- **Responsible for the conclusion:** %s\n", st.Concluder)
	}
	fmt.Fprintf(w, "- **Created:** %s\n", mdTime(st.CreatedAt))
	if st.ClosedAt != nil {
		fmt.Fprintf(w, "- **Closed:** %s\n", mdTime(*st.ClosedAt))
	}
	fmt.Fprintf(w, "- **Last event:** #%d\n", st.LastEventSeq)

	writeMarkdownDigest(w, t.Digest())

	fmt.Fprint(w, "\n## Members\n\n")
	if len(st.Members) == 0 {
		fmt.Fprint(w, "No members.\n")
	} else {
		fmt.Fprint(w, "| # | member | status | turn | joined | last seen |\n|---|---|---|---|---|---|\n")
		for _, m := range st.Members {
			fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s |\n", m.Ordinal, mdCell(m.AgentID), m.Status, dash(m.TurnRole),
				mdTime(m.JoinedAt), mdTime(m.LastSeenAt))
		}
	}

	fmt.Fprint(w, "\n## Document\n\n")
	d := t.Document
	if d.Version == 0 {
		fmt.Fprint(w, "The document was never written.\n")
	} else {
		fmt.Fprintf(w, "Version %d, written by %s at %s (%s, %d bytes).\n\n", d.Version, dash(d.Author), mdTime(d.CreatedAt), d.Op, d.Size)
		if d.Content == "" {
			fmt.Fprint(w, "This version is empty.\n")
		} else {
			fence := strings.Repeat("`", max(3, longestRun(d.Content, '`')+1))
			fmt.Fprintf(w, "%smarkdown\n%s", fence, d.Content)
			if !strings.HasSuffix(d.Content, "\n") {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w, fence)
		}
	}

	fmt.Fprint(w, "\n## Events\n")
	if len(t.Events) == 0 {
		switch last := st.LastEventSeq; {
		case t.After > last:
			fmt.Fprintf(w, "\nNo events after #%d; the last event is #%d.\n", t.After, last)
		case t.After > 0:
			fmt.Fprintf(w, "\nNo events after #%d, the room's last event.\n", t.After)
		default:
			fmt.Fprint(w, "\nNo events.\n")
		}
	}
	for _, e := range t.Events {
		writeMarkdownEvent(w, e)
	}
}

// writeMarkdownDigest writes what a newcomer reads first: the latest
// handoff, the questions nobody answered and the decisions, each pointing
// at its event below.
func writeMarkdownDigest(w io.Writer, d stick.Digest) {
	if d.Handoff == nil && len(d.OpenQuestions) == 0 && len(d.Decisions) == 0 {
		return
	}
	fmt.Fprint(w, "\n## Where things stand\n")
	if h := d.Handoff; h != nil {
		fmt.Fprintf(w, "\nLatest handoff: #%d, %s by %s", h.Seq, h.Type, dash(h.From))
		if h.To != "" {
			fmt.Fprintf(w, " to %s", h.To)
		}
		fmt.Fprintf(w, " at %s.\n", mdTime(h.CreatedAt))
		writeMarkdownHandoff(w, *h.Handoff)
	}
	for _, part := range []struct {
		title string
		evs   []stick.Event
	}{{"Open questions", d.OpenQuestions}, {"Decisions", d.Decisions}} {
		if len(part.evs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n**%s:**\n\n", part.title)
		for _, e := range part.evs {
			fmt.Fprintf(w, "- #%d %s:%s\n", e.Seq, dash(e.From), mdField(e.Text, "  "))
		}
	}
}

// writeMarkdownEvent writes one event: a heading with its number, type and
// members, a line with its time and turn, then what it carries.
func writeMarkdownEvent(w io.Writer, e stick.Event) {
	title := fmt.Sprintf("#%d %s", e.Seq, e.Type)
	if e.Type == stick.EventNote {
		var kind []string
		if e.MessageType != "" && e.MessageType != stick.DefaultNoteType {
			kind = append(kind, string(e.MessageType))
		}
		if e.Ref != 0 {
			kind = append(kind, fmt.Sprintf("reply to #%d", e.Ref))
		}
		if len(kind) > 0 {
			title += " (" + strings.Join(kind, ", ") + ")"
		}
	}
	if e.From != "" {
		title += " · " + e.From
	}
	if e.To != "" && (e.Type == stick.EventRelease || e.Type == stick.EventPass || e.Type == stick.EventConcluder) {
		title += " → " + e.To
	}
	fmt.Fprintf(w, "\n### %s\n\n", title)
	meta := []string{mdTime(e.CreatedAt), fmt.Sprintf("turn %d", e.TurnID)}
	switch e.Type {
	case stick.EventClaim:
		if e.Reason != "" {
			meta = append(meta, "reason: "+e.Reason)
		}
		if e.Ref != 0 {
			meta = append(meta, fmt.Sprintf("received the handoff of #%d", e.Ref))
		}
	case stick.EventLeave:
		if e.To != "" {
			meta = append(meta, "the stick is reserved for "+e.To+" now")
		}
	case stick.EventTakeover:
		if why, ok := e.TakeoverData(); ok && why.TakeoverReason != "" {
			meta = append(meta, "takeover open: "+Line(string(why.TakeoverReason)))
		}
		if e.To != "" {
			meta = append(meta, "revoked "+e.To)
		}
		if e.Ref != 0 {
			meta = append(meta, fmt.Sprintf("the pending handoff was #%d", e.Ref))
		}
	}
	if note := DocNote(e); note != "" {
		meta = append(meta, note)
	}
	fmt.Fprintf(w, "%s\n", strings.Join(meta, " · "))

	if e.Reason != "" && e.Type != stick.EventClaim {
		fmt.Fprintf(w, "\n**Reason:** %s\n", e.Reason)
	}
	if e.Handoff != nil {
		writeMarkdownHandoff(w, *e.Handoff)
	}
	switch e.Type {
	case stick.EventPolicy:
		if p, ok := e.PolicyData(); ok {
			fmt.Fprintf(w, "\n**Policy:** lease %s, heartbeat %s, claim %s, presence %s, wait %s\n",
				Duration(p.OwnerLeaseTTL), Duration(p.HeartbeatInterval), Duration(p.ClaimTTL), Duration(p.PresenceTTL), Duration(p.WaitMaxWait))
		}
	case stick.EventReorder:
		if r, ok := e.ReorderData(); ok && len(r.AgentIDs) > 0 {
			fmt.Fprintf(w, "\n**New order:** %s\n", strings.Join(Lines(r.AgentIDs), ", "))
		}
	case stick.EventNote:
		if e.ClientMessageID != "" {
			fmt.Fprintf(w, "\n**Sender's id:** %s\n", mdCode(e.ClientMessageID))
		}
		if len(e.Data) > 0 {
			fmt.Fprintf(w, "\n**Metadata:** %s\n", mdCode(string(e.Data)))
		}
	}
	if e.Text != "" {
		label := ""
		switch e.Type {
		case stick.EventClose:
			label = "**Conclusion:**\n\n"
		case stick.EventDoc:
			label = "**Appended:**\n\n"
		}
		fmt.Fprintf(w, "\n%s%s\n", label, mdQuote(e.Text))
	}
}

// writeMarkdownHandoff writes a handoff as a list, every field in full.
func writeMarkdownHandoff(w io.Writer, h stick.Handoff) {
	fmt.Fprint(w, "\n**Handoff:**\n\n")
	fmt.Fprintf(w, "- **Status:**%s\n", mdField(h.Status, "  "))
	fmt.Fprintf(w, "- **Next action:**%s\n", mdField(h.NextAction, "  "))
	if len(h.Artifacts) > 0 {
		fmt.Fprint(w, "- **Artifacts:**\n")
		for _, a := range h.Artifacts {
			loc := a.Path
			if len(a.Lines) == 2 {
				loc = fmt.Sprintf("%s:%d-%d", a.Path, a.Lines[0], a.Lines[1])
			}
			line := fmt.Sprintf("  - %s (%s)", mdCode(loc), a.Role)
			if a.Note != "" {
				line += ":" + mdField(a.Note, "    ")
			}
			fmt.Fprintln(w, line)
		}
	}
	for _, l := range []struct {
		title string
		items []string
	}{{"Open questions", h.OpenQuestions}, {"Do not", h.DoNot}} {
		if len(l.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "- **%s:**\n", l.title)
		for _, it := range l.items {
			fmt.Fprintf(w, "  -%s\n", mdField(it, "    "))
		}
	}
}

// mdField writes the text of a list item after its label: a text of one
// line after a space, a text of several lines as a block quote under the
// item, indented by indent, so none of its lines starts a line of the
// export's own structure.
func mdField(s, indent string) string {
	if !strings.Contains(strings.TrimRight(s, "\n"), "\n") {
		return " " + strings.TrimRight(s, "\n")
	}
	q := mdQuote(s)
	return "\n\n" + indent + strings.ReplaceAll(q, "\n", "\n"+indent)
}

// mdQuote writes text as a block quote, line by line.
func mdQuote(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}

// mdCode writes s as inline code, with a fence of backticks longer than any
// run of them in s.
func mdCode(s string) string {
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdCell escapes the pipes of a table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// dash is s, or "-" when s is empty.
func dash(s string) string { return cmp.Or(s, "-") }

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}
