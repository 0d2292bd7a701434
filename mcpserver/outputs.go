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

type docOut struct {
	stick.Document
	NextStep string `json:"next_step"`
}

type docVersionOut struct {
	stick.DocVersion
	NextStep string `json:"next_step"`
}

type docHistoryOut struct {
	RoomID string `json:"room_id"`
	// Versions are every version of the document, oldest first.
	Versions []stick.DocVersion `json:"versions"`
	NextStep string             `json:"next_step"`
}

type searchOut struct {
	Query string `json:"query"`
	// Hits are the matches, best first.
	Hits     []stick.SearchHit `json:"hits"`
	NextStep string            `json:"next_step"`
}
