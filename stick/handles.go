package stick

// MaxMemberHandleLen bounds a member's handle (see SetHandle).
const MaxMemberHandleLen = 32

// BroadcastRecipient addresses a note to the whole room, the same as
// naming no recipient: it wakes nobody.
const BroadcastRecipient = "all"

// Identity is who a member is in a room: what get_my_handle answers.
type Identity struct {
	RoomID  string `json:"room_id"`
	AgentID string `json:"agent_id"`
	// Handle is the short name the member chose; "" when none.
	Handle      string      `json:"handle,omitempty"`
	DisplayName string      `json:"display_name,omitempty"`
	Kind        SessionKind `json:"session_kind"`
}
