package chat

import (
	"strings"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// grant is the latest claim or takeover the console has seen: who got the
// stick, and when.
type grant struct {
	agent string
	at    time.Time
}

// footer is the room's status in one line: who holds the stick and for
// how long, who is next (never this console, which takes no turns), who
// (but this console) is away or gone.
func (m *Model) footer() string {
	if !m.haveStatus {
		return m.pal.dim("reading the room…")
	}
	st := m.status
	var parts []string
	switch {
	case st.State == stick.StateClosed:
		parts = append(parts, m.pal.warn("the room is closed"))
	case st.Owner != "":
		held := "held by " + m.name(st.Owner)
		if m.granted.agent == st.Owner && !m.granted.at.IsZero() {
			held += " for " + render.Duration(max(m.now().Sub(m.granted.at), 0).Truncate(time.Second))
		}
		parts = append(parts, held)
	case st.ReservedFor != "":
		parts = append(parts, "reserved for "+m.name(st.ReservedFor))
	default:
		parts = append(parts, "nobody holds the stick")
	}
	switch st.State {
	case stick.StateIdle, stick.StateOwned, stick.StateReserved, stick.StateClosed:
	default:
		parts = append(parts, m.pal.warn(render.Line(string(st.State))))
	}
	if next := st.Next(m.self); next != "" && st.Owner != "" {
		parts = append(parts, "next: "+m.name(next))
	}
	for _, s := range []string{stick.MemberAway, stick.MemberGone} {
		var who []string
		for _, mem := range st.Members {
			if mem.Status == s && mem.AgentID != m.self {
				who = append(who, m.name(mem.AgentID))
			}
		}
		if len(who) > 0 {
			parts = append(parts, s+": "+strings.Join(who, ", "))
		}
	}
	return strings.Join(parts, m.pal.dim(" · "))
}
