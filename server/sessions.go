package server

import "github.com/stickhq/stick/stick"

// A team's session: who has joined it, waiting until enough have, and the
// member responsible for its conclusion. Closing is close_room's (turn.go).

type membersQuery struct {
	Min    int   `query:"min" jsonschema:"Wait until the room has at least this many members; 0 (the default) answers at once."`
	WaitMS int64 `query:"wait_ms" jsonschema:"With fewer members than min: wait up to this long for them (at most 600000)."`
}

// roomMembers answers the room's roster, at once when it has min members
// (or the room is closed), else once it has or wait_ms has passed: a long
// poll, which the hub's stop ends with the roster as it is.
func roomMembers(c *call, q membersQuery) (stick.Roster, error) {
	wait, err := millis("wait_ms", &q.WaitMS)
	if err != nil {
		return stick.Roster{}, err
	}
	if *wait > 0 {
		end, err := c.longPoll()
		if err != nil {
			return stick.Roster{}, err
		}
		defer end()
	}
	return c.svc.WaitForMembers(c.ctx, c.room, q.Min, *wait)
}

type concluderIn struct {
	Concluder string `json:"concluder" jsonschema:"The agent_id of a member of the room; empty names none."`
}

// setConcluder names the member responsible for the room's conclusion.
func setConcluder(c *call, in concluderIn) (stick.RoomStatus, error) {
	return c.svc.SetConcluder(c.ctx, c.caller, c.room, in.Concluder)
}
