package stick

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// EventType names what an event records.
type EventType string

// The event types. The log is append-only; the room row is its projection.
const (
	EventClaim    EventType = "claim"
	EventRelease  EventType = "release"
	EventPass     EventType = "pass"
	EventTakeover EventType = "takeover"
	EventClose    EventType = "close"
	EventJoin     EventType = "join"
	EventLeave    EventType = "leave"
	EventNote     EventType = "note"
	EventPolicy   EventType = "policy"
	EventReorder  EventType = "reorder"
	// EventDoc records a write to the room document; Data holds its
	// version, op and size (DocData), Text the appended text of an append.
	EventDoc EventType = "doc"
	// EventConcluder records who named the member responsible for the
	// room's conclusion (From) and whom (To; "" when the room names none
	// any more). See SetConcluder.
	EventConcluder EventType = "concluder"
)

// ReasonConclusionRequested is the Reason of the pass event by which a
// member asked to close a room whose conclusion another member is
// responsible for: the stick went to that member with a handoff asking
// for the conclusion (see Close).
const ReasonConclusionRequested = "conclusion_requested"

// Event is one entry of a room's append-only log.
type Event struct {
	// Seq is the event's position; it increases across the whole database and is the cursor of RoomEvents.
	Seq    int64     `json:"event_seq"`
	ID     string    `json:"event_id"`
	RoomID string    `json:"room_id"`
	TurnID int64     `json:"turn_id"`
	Type   EventType `json:"event_type"`
	// From is the acting member (releaser, passer, claimant, taker, author).
	From string `json:"from_agent_id,omitempty"`
	// To is the recipient of a pass or release, the member revoked by a takeover, or the member a
	// concluder event names.
	To string `json:"to_agent_id,omitempty"`
	// Handoff is set on release and pass events.
	Handoff *Handoff `json:"handoff,omitempty"`
	// Reason is the takeover reason, the claim reason (open_claim, sequence, direct_pass), the close reason,
	// or ReasonConclusionRequested on a pass that asked for a room's conclusion.
	Reason string `json:"reason,omitempty"`
	// Text is a note's text or a close event's conclusion.
	Text string `json:"text,omitempty"`
	// MessageType is a note's kind: one of NoteTypes or a custom x-... type
	// (a note posted before types were checked may carry another word).
	MessageType NoteType `json:"message_type,omitempty"`
	// Recipients are the members a note is addressed to (agent ids, as
	// resolved when it was posted); empty for a note to the whole room.
	// Addressing is routing, not privacy: every member reads every note.
	Recipients []string `json:"recipients,omitempty"`
	// Interrupt marks a directed note that should interrupt its
	// recipients: it ends their wait_for_turn at once.
	Interrupt bool `json:"interrupt,omitempty"`
	// Channel is a note's channel (see Channel); "" on other events and on
	// notes posted before channels, which count as DefaultChannel.
	Channel string `json:"channel,omitempty"`
	// ClientMessageID is the sender's idempotency key of a note, if it gave one.
	ClientMessageID string `json:"client_message_id,omitempty"`
	// Ref points at a related event: for a claim, the handoff it received; for a takeover, the handoff
	// pending at the time; for a note, the event it replies to.
	Ref int64 `json:"ref_event_seq,omitempty"`
	// Data carries structured details: a note's metadata as its author
	// gave it, else the payload of the event's type, read with JoinData,
	// DocData, CloseData, ReorderData, TakeoverData or PolicyData (see
	// eventdata.go).
	Data      json.RawMessage `json:"data,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
}

// EventTypes are every event type, in the order the log's types were added.
var EventTypes = []EventType{EventClaim, EventRelease, EventPass, EventTakeover, EventClose, EventJoin, EventLeave,
	EventNote, EventPolicy, EventReorder, EventDoc, EventConcluder}

// Known reports whether t is one of EventTypes.
func (t EventType) Known() bool { return slices.Contains(EventTypes, t) }

// EventTypeNames lists EventTypes for a message.
func EventTypeNames() string {
	names := make([]string, len(EventTypes))
	for i, t := range EventTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
