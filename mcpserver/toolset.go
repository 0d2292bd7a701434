package mcpserver

import (
	"fmt"
	"slices"
	"strings"
)

// ToolSet names the tools a server offers. Every tool's name, description
// and input schema is text a model reads before it has done anything, so a
// harness that only takes turns can register the smaller set.
type ToolSet string

const (
	// AllTools offers every tool: the default.
	AllTools ToolSet = "all"
	// CoreTools offers what taking turns needs: finding and joining the
	// room, waiting, heartbeat, handing on, takeover, reading the room's
	// state and log, posting a note and leaving.
	CoreTools ToolSet = "core"
)

// ToolSets lists every tool set, for flags and their help.
var ToolSets = []ToolSet{AllTools, CoreTools}

// coreTools are the tools of CoreTools.
var coreTools = []string{
	"list_rooms", "join_path", "wait_for_turn", "heartbeat", "release_stick", "pass_stick",
	"takeover_stick", "get_room_state", "get_room_events", "append_note", "leave_path",
}

// CoreToolNames returns the names of the tools of CoreTools.
func CoreToolNames() []string { return slices.Clone(coreTools) }

// ParseToolSet returns the tool set named s; "" is AllTools.
func ParseToolSet(s string) (ToolSet, error) {
	if s == "" {
		return AllTools, nil
	}
	if t := ToolSet(s); slices.Contains(ToolSets, t) {
		return t, nil
	}
	names := make([]string, len(ToolSets))
	for i, t := range ToolSets {
		names[i] = string(t)
	}
	return "", fmt.Errorf("unknown tool set %q: the tool sets are %s", s, strings.Join(names, ", "))
}

// offers reports whether the set includes the tool name.
func (t ToolSet) offers(name string) bool {
	return t != CoreTools || slices.Contains(coreTools, name)
}
