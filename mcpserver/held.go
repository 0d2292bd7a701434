package mcpserver

import "github.com/stickhq/stick/stick"

// held returns the memberships this connection's joins established, for
// stick.JoinRequest.Held: at most one per room, at most stick.MaxHeld of
// them (a connection joins a handful of rooms).
func (c *conn) held() []stick.Membership {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]stick.Membership, 0, min(len(c.rooms), stick.MaxHeld))
	for room, m := range c.rooms {
		if len(out) == stick.MaxHeld {
			break
		}
		out = append(out, stick.Membership{RoomID: room, AgentID: m.agentID, ReclaimToken: m.token})
	}
	return out
}
