package chat

import (
	"hash/fnv"
	"strings"

	"charm.land/lipgloss/v2"
)

// palette marks up the console's text for the terminal: a colour per
// harness for members' names, dim for what is secondary, yellow for what
// calls for attention, red for errors. With colours off (NO_COLOR) every
// method returns its text as it is: no escape sequence at all.
type palette struct{ on bool }

// harnessColors are the colours (of the 256-colour table) of the names of
// the harnesses' members, by the prefix of their agent ids.
var harnessColors = map[string]string{
	"claude-code": "173", "claude": "173", "codex": "36", "gemini": "33",
	"opencode": "214", "cursor": "81", "copilot": "75", "human": "170",
}

// otherColors are given to the members of other harnesses, one per
// harness, by a hash of its name.
var otherColors = []string{"109", "137", "143", "67", "132", "72", "180", "110"}

// harnessOf is the harness an agent id names before its colon
// ("claude-code:7f3a" is of claude-code), or the whole id when it has none.
func harnessOf(agentID string) string {
	h, _, _ := strings.Cut(agentID, ":")
	return h
}

// colorOf is the colour of the members of harness.
func colorOf(harness string) string {
	if c, ok := harnessColors[harness]; ok {
		return c
	}
	f := fnv.New32a()
	f.Write([]byte(harness))
	return otherColors[f.Sum32()%uint32(len(otherColors))]
}

func (p palette) style(st lipgloss.Style, s string) string {
	if !p.on || s == "" {
		return s
	}
	return st.Render(s)
}

// member writes name, a member's name already made safe, in the colour of
// the harness of agentID.
func (p palette) member(agentID, name string) string {
	return p.style(lipgloss.NewStyle().Foreground(lipgloss.Color(colorOf(harnessOf(agentID)))), name)
}

// dim tones s down: times, turn events, delivery notices.
func (p palette) dim(s string) string { return p.style(lipgloss.NewStyle().Faint(true), s) }

// bold emphasises s: the header, the holder.
func (p palette) bold(s string) string { return p.style(lipgloss.NewStyle().Bold(true), s) }

// warn marks s as calling for attention: an interrupt, a room in trouble.
func (p palette) warn(s string) string {
	return p.style(lipgloss.NewStyle().Foreground(lipgloss.Color("3")), s)
}

// bad marks s as an error.
func (p palette) bad(s string) string {
	return p.style(lipgloss.NewStyle().Foreground(lipgloss.Color("1")), s)
}
