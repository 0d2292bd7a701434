package stick

import "encoding/json"

// The payloads of Event.Data, one type per event type that carries one.
// Package stick writes them and frontends read them back through the
// accessors on Event (JoinData, DocData, ...), so no frontend decodes a
// payload by its own idea of its fields. A note's Data is its metadata,
// the JSON its author gave, and has no type here. The JSON of each payload
// is fixed: its keys are in alphabetical order, as the log has always
// stored them.

// JoinData is the Data of a join event: how the member joined.
type JoinData struct {
	// ForceNew is true when the join asked for a nested room.
	ForceNew bool `json:"force_new"`
	// Ordinal is the member's place in the sequence.
	Ordinal int `json:"ordinal"`
	// Override is true when the join chose its agent id
	// (JoinRequest.AgentIDOverride).
	Override bool `json:"override"`
	// Reclaimed is true when a member came back in another process.
	Reclaimed bool `json:"reclaimed,omitempty"`
	// SessionKind is the member's kind of session.
	SessionKind SessionKind `json:"session_kind"`
}

// DocData is the Data of a doc event: the document version a write made.
type DocData struct {
	Op DocOp `json:"op"`
	// Section is the heading an append went under, "" for the end.
	Section string `json:"section,omitempty"`
	// Size is the new version's length in bytes.
	Size    int   `json:"size"`
	Version int64 `json:"version"`
}

// CloseData is the Data of a close event that wrote its conclusion into
// the document (a close without a conclusion has no Data).
type CloseData struct {
	// DocVersion is the document version holding the conclusion.
	DocVersion int64 `json:"doc_version"`
}

// ReorderData is the Data of a reorder event: the new member order.
type ReorderData struct {
	AgentIDs []string `json:"agent_ids"`
}

// TakeoverData is the Data of a takeover event: why takeover was open.
type TakeoverData struct {
	TakeoverReason TakeoverReason `json:"takeover_reason"`
}

// A policy event's Data is the room's effective Policy after the change,
// in Policy's JSON (see Event.PolicyData).

// JoinData returns the payload of a join event; false for another event or
// a payload that cannot be read.
func (e Event) JoinData() (JoinData, bool) { return eventData[JoinData](e, EventJoin) }

// DocData returns the payload of a doc event; false for another event or a
// payload that cannot be read.
func (e Event) DocData() (DocData, bool) { return eventData[DocData](e, EventDoc) }

// CloseData returns the payload of a close event; false for another event,
// a close that wrote no conclusion, or a payload that cannot be read.
func (e Event) CloseData() (CloseData, bool) { return eventData[CloseData](e, EventClose) }

// ReorderData returns the payload of a reorder event; false for another
// event or a payload that cannot be read.
func (e Event) ReorderData() (ReorderData, bool) { return eventData[ReorderData](e, EventReorder) }

// TakeoverData returns the payload of a takeover event; false for another
// event or a payload that cannot be read.
func (e Event) TakeoverData() (TakeoverData, bool) { return eventData[TakeoverData](e, EventTakeover) }

// PolicyData returns the effective policy a policy event recorded; false
// for another event or a payload that cannot be read.
func (e Event) PolicyData() (Policy, bool) { return eventData[Policy](e, EventPolicy) }

// eventData decodes the Data of e when e is of type t.
func eventData[T any](e Event, t EventType) (T, bool) {
	var v T
	if e.Type != t || len(e.Data) == 0 || json.Unmarshal(e.Data, &v) != nil {
		var zero T
		return zero, false
	}
	return v, true
}

// encodeData encodes a payload for Event.Data. The payloads are plain
// structs, which always encode.
func encodeData(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// RemovedData is the Data of a leave event by which a member was removed
// (see RemoveMember): who removed it and why.
type RemovedData struct {
	// By is the member (or operator) that removed it.
	By string `json:"by"`
	// Reason is the reason given, "" for none.
	Reason string `json:"reason,omitempty"`
	// Gone is true when the member's process was proven gone.
	Gone bool `json:"gone"`
	// HeldTurn is the turn it held, revoked by the removal; 0 when it held none.
	HeldTurn int64 `json:"held_turn,omitempty"`
}

// RemovedData returns the payload of a leave event that removed a member;
// false for another event, or a member that left by itself.
func (e Event) RemovedData() (RemovedData, bool) {
	if e.Reason != ReasonRemoved {
		return RemovedData{}, false
	}
	return eventData[RemovedData](e, EventLeave)
}
