package chat

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/render"
)

// helpLines are what /help shows.
var helpLines = []string{
	"  TEXT                  post a note to the room",
	"  @name TEXT            post it to a member (a handle, an agent id or the start of a display name);",
	"                        @names anywhere in the text address those members too",
	"  /interrupt @name TEXT post it and end the member's wait for the stick at once",
	"  /who                  the members: status, harness, handle, standby, how they are woken",
	"  /events               show or hide the turn events (claims, takeovers, joins, leaves)",
	"  /help                 this list",
	"  /quit                 leave the console (also Ctrl+C, or Ctrl+D on an empty line)",
	"  Tab completes an @name; PgUp and PgDown scroll the conversation.",
}

// command runs a line that starts with '/'.
func (m *Model) command(line string) tea.Cmd {
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "/quit":
		return m.quit()
	case "/help":
		m.local(append([]string{m.pal.bold("commands:")}, helpLines...))
	case "/who":
		m.local(m.who())
	case "/events":
		m.showTurns = !m.showTurns
		if m.showTurns {
			m.say("turn events shown; /events hides them", false)
		} else {
			m.say("turn events hidden; /events shows them", false)
		}
		m.input.Reset()
		return nil
	case "/interrupt":
		to, text := parseMentions(rest)
		switch {
		case len(to) == 0:
			m.say("an interrupt needs a recipient: /interrupt @name TEXT", true)
			return nil
		case text == "":
			m.say("nothing to post: write the note after the @names", true)
			return nil
		}
		return m.post(line, text, to, true)
	default:
		m.say("unknown command "+render.Line(name)+": /help lists the commands", true)
		return nil
	}
	m.say("", false)
	m.input.Reset()
	return nil
}

// local adds lines the console wrote itself to the conversation, and
// scrolls to them.
func (m *Model) local(lines []string) {
	m.add(entry{local: lines})
	m.scroll = 0
}

// who is the members as /who shows them, in sequence order.
func (m *Model) who() []string {
	if !m.haveStatus {
		return []string{m.pal.dim("the room's members are not read yet")}
	}
	header := []string{"AGENT", "HANDLE", "STATUS", "HARNESS", "KIND", "STANDBY", "WAKE", "DISPLAY NAME"}
	rows := [][]string{header}
	for _, mem := range m.status.Members {
		agent, status := mem.AgentID, mem.Status
		if mem.AgentID == m.self {
			agent += " (you)"
		}
		if mem.TurnRole != "" {
			status += ", " + mem.TurnRole
		}
		standby := "-"
		if mem.Standby {
			standby = "yes"
		}
		wake := "-"
		if mem.Wake != nil && len(mem.Wake.Transports) > 0 {
			wake = strings.Join(mem.Wake.Transports, ",")
			if mem.Wake.LastState != "" {
				wake += " (last: " + mem.Wake.LastState + ")"
			}
		}
		rows = append(rows, []string{agent, mem.Handle, status, harnessOf(mem.AgentID), string(mem.Kind), standby, wake, mem.DisplayName})
	}
	widths := make([]int, len(header))
	for _, r := range rows {
		for i, c := range r {
			r[i] = render.Line(printable.StripEscapes(dash(c)))
			widths[i] = max(widths[i], lipgloss.Width(r[i]))
		}
	}
	out := []string{m.pal.bold("members, in turn order:")}
	for ri, r := range rows {
		var b strings.Builder
		b.WriteString(" ")
		for i, c := range r {
			cell := c
			switch {
			case ri == 0:
				cell = m.pal.bold(c)
			case i == 0:
				cell = m.pal.member(m.status.Members[ri-1].AgentID, c)
			}
			b.WriteString(" " + cell)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-lipgloss.Width(c)))
			}
		}
		out = append(out, b.String())
	}
	return out
}

// dash is s, or "-" for nothing.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
