package mcpserver

import (
	"time"

	"github.com/stickhq/stick/stick"
)

type listRoomsOut struct {
	ContextPath string              `json:"context_path"`
	Rooms       []stick.RoomSummary `json:"rooms"`
}

type joinOut struct {
	stick.JoinResult
	NextStep string `json:"next_step"`
}

type waitOut struct {
	stick.WaitResult
	AgentID  string `json:"agent_id"`
	NextStep string `json:"next_step"`
}

type heartbeatOut struct {
	stick.HeartbeatResult
	NextStep string `json:"next_step"`
}

type releaseOut struct {
	stick.ReleaseResult
	NextStep string `json:"next_step"`
}

type takeoverOut struct {
	stick.TakeoverResult
	AgentID  string    `json:"agent_id"`
	NextStep string    `json:"next_step"`
	now      time.Time // for the text only
}

type leaveOut struct {
	RoomID  string `json:"room_id"`
	AgentID string `json:"agent_id"`
	Left    bool   `json:"left"`
}

type policyOut struct {
	RoomID string       `json:"room_id"`
	Policy stick.Policy `json:"policy"`
}

type membersOut struct {
	RoomID  string               `json:"room_id"`
	Members []stick.MemberStatus `json:"members"`
}

type noteOut struct {
	Event stick.Event `json:"event"`
	// Duplicate is true when client_message_id matched an earlier send.
	Duplicate bool `json:"duplicate"`
}
