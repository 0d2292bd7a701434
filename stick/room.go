package stick

import "time"

// RoomState is the state of a room as the protocol names it. Idle, owned,
// reserved and closed are stored; stale_owner, owner_gone, recipient_gone and
// dormant are derived on read from time, presence and process liveness.
type RoomState string

// The room states of the protocol.
const (
	StateIdle          RoomState = "idle"
	StateOwned         RoomState = "owned"
	StateReserved      RoomState = "reserved"
	StateStaleOwner    RoomState = "stale_owner"
	StateOwnerGone     RoomState = "owner_gone"
	StateRecipientGone RoomState = "recipient_gone"
	StateDormant       RoomState = "dormant"
	StateClosed        RoomState = "closed"
)

// Room is the stored projection of one room's event log: who holds the stick,
// for whom it is reserved, and the fencing values of the current epoch. It is
// what a Store reads and writes; callers see RoomStatus instead.
type Room struct {
	ID string
	// Path is the canonical path of the directory the room is for, which
	// finds it on this host; "" for a named room.
	Path string
	// Key names the room's workspace the same way on every host (see
	// Workspaces.Key): clones of one repository on several hosts, or at
	// several paths of one host, share it. "" for a named room.
	Key string
	// Name is the name people gave the room when they created it by name
	// (see JoinRequest.Name); "" for a room of a path.
	Name string
	// Topic distinguishes several rooms at one path; "" is the default room.
	Topic string
	// State is one of the stored states: idle, owned, reserved or closed.
	State         RoomState
	SequenceIndex int
	Owner         string
	ReservedFor   string
	// PendingHandoffSeq is the release or pass event the next claimant receives.
	PendingHandoffSeq int64
	// GrantSeq is the claim or takeover event that started the current turn.
	GrantSeq       int64
	TurnID         int64
	LeaseID        string
	LeaseExpiresAt time.Time
	ClaimExpiresAt time.Time
	// Policy holds the room's overrides; zero fields use the service default.
	Policy Policy
	// Concluder is the member responsible for the room's conclusion: a
	// close asked by another member who is no operator hands it the
	// stick instead, and it closes the room only with a conclusion (see
	// Close and SetConcluder); "" when the room names none.
	Concluder string
	// Channels are the channels the room's project declares (see
	// ChannelSpec); none means the room offers DefaultChannels. The
	// room offers DefaultChannel either way.
	Channels  []ChannelSpec
	CreatedAt time.Time
	UpdatedAt time.Time
	ClosedAt  time.Time
}

// SessionKind says what kind of process stands behind a member, which decides
// whether its process facts can be used to judge liveness.
type SessionKind string

// The session kinds.
const (
	// KindHarness is an MCP server spawned by a coding-agent harness; its facts are the harness process.
	KindHarness SessionKind = "mcp_harness"
	// KindGuardian is the small process that holds the stick on behalf of a person.
	KindGuardian SessionKind = "human_guardian"
	// KindProcess is a long-lived program using this package directly; its facts are its own.
	KindProcess SessionKind = "process"
	// KindOneShot is a short-lived command (a CLI call); its process facts are never recorded.
	KindOneShot SessionKind = "one_shot"
)

// Valid reports whether k is a known session kind.
func (k SessionKind) Valid() bool {
	switch k {
	case KindHarness, KindGuardian, KindProcess, KindOneShot:
		return true
	}
	return false
}

// Member is one participant of a room, in sequence order.
type Member struct {
	RoomID      string
	AgentID     string
	Ordinal     int
	JoinedAt    time.Time
	LastSeenAt  time.Time
	Kind        SessionKind
	DisplayName string
	// Process identifies the process whose life stands for the member; zero when unknown.
	Process Process
	// SyncCursor is the last event Sync has given the member (see Sync).
	SyncCursor int64
	// ReclaimToken lets a restarted process of this member join as it again
	// (see JoinRequest.ReclaimToken); secret, never shown to other members.
	ReclaimToken string `json:"-"`
	// Handle is the short name the member chose (see SetHandle), unique
	// in the room; "" when none.
	Handle string
	// Standby is set while the member stays in the room without taking
	// turns by itself (see SetStandby).
	Standby bool
	// WakeTransports name the ways the member's harness session can be
	// woken (see WakeStatus); none when it cannot be.
	WakeTransports []string
	// WokenSeq is the event_seq of the newest event a wake of the member
	// was claimed for (see ClaimWake): one wake per unread batch.
	WokenSeq int64
	// WakeState, WakeTransport and WakeAt report the last wake (see ReportWake).
	WakeState     string
	WakeTransport string
	WakeAt        time.Time
}

// Where says where a room is, for text: "at" and its path, or "named" and
// its name for a named room.
func Where(path, name string) string {
	if name != "" {
		return "named " + name
	}
	return "at " + path
}
