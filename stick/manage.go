package stick

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/procid"
)

// AppendNote adds a plain note to the room's log: Post with only a text.
//
// Errors: invalid_argument (text), room_not_found, room_closed, unknown_member.
func (s *Service) AppendNote(ctx context.Context, c Caller, roomID, text string) (Event, error) {
	if err := s.act(ActionAppendNote, c); err != nil {
		return Event{}, err
	}
	res, err := s.Post(ctx, c, roomID, Note{Text: text})
	return res.Event, err
}

// Note is a message to the room's log.
type Note struct {
	// Text is the message (required).
	Text string
	// Type is its kind: note (the default), question, answer, decision,
	// or a custom type that starts with "x-" (see NoteTypes).
	Type NoteType
	// ReplyTo is the event_seq of an event of the same room it answers; 0 for none.
	ReplyTo int64
	// Metadata is an optional JSON object for tools; stick stores it as given.
	Metadata json.RawMessage
	// ClientMessageID makes the send idempotent: sending again with the same
	// id (per room and sender) returns the first event, flagged Duplicate.
	ClientMessageID string
	// To names the note's recipients: agent ids, handles, unambiguous
	// prefixes of display names, or BroadcastRecipient for the whole room
	// (the same as none). An unknown or ambiguous name is an error naming
	// the members; nothing is posted.
	To []string
	// Interrupt ends the recipients' wait_for_turn at once with the note
	// (see WaitInterrupted); it needs recipients.
	Interrupt bool
	// Channel is the channel the note goes to; "" is DefaultChannel. A
	// channel the room does not offer is refused with the list of channels.
	Channel string
}

// PostResult is what Post returns.
type PostResult struct {
	Event Event `json:"event"`
	// Duplicate is true when ClientMessageID matched an earlier send, whose
	// event is returned; nothing new was posted.
	Duplicate bool `json:"duplicate"`
	// TextDiffers is true for a duplicate whose earlier send had another
	// text: the earlier text stands, this one was not posted.
	TextDiffers bool `json:"text_differs,omitempty"`
}

// Limits on notes.
const (
	MaxMessageTypeLen = 64
	MaxMetadataLen    = 16 << 10
)

// NoteType is a note's kind: one of NoteTypes, or a custom type that starts
// with CustomTypePrefix.
type NoteType string

// The known note types.
const (
	// DefaultNoteType is a note's type when the sender gives none.
	DefaultNoteType NoteType = "note"
	// NoteQuestion asks something that should be answered.
	NoteQuestion NoteType = "question"
	// NoteAnswer answers a question; its ReplyTo names the question.
	NoteAnswer NoteType = "answer"
	// NoteDecision records a decision the room made.
	NoteDecision NoteType = "decision"
)

// Post adds a note to the room's log. Any member may post, with or without
// the stick; a note never changes who holds it, and wakes only waiters that
// follow the log with a cursor.
//
// Errors: invalid_argument (text, message_type, reply_to, metadata,
// client_message_id), room_not_found, room_closed, unknown_member.
func (s *Service) Post(ctx context.Context, c Caller, roomID string, n Note) (PostResult, error) {
	if err := s.act(ActionPost, c); err != nil {
		return PostResult{}, err
	}
	if err := n.validate(""); err != nil {
		return PostResult{}, err
	}
	var out PostResult
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		var err error
		out, err = post(tx, sn, c, n, "")
		return err
	})
	return out, err
}

// post appends a validated note inside tx, or finds the one sent earlier
// with its client message id. field prefixes the names of bad fields.
func post(tx Tx, sn *snapshot, c Caller, n Note, field string) (PostResult, error) {
	roomID := sn.room.ID
	if n.Type == "" {
		n.Type = DefaultNoteType
	}
	if n.ClientMessageID != "" {
		ev, ok, err := tx.SentEvent(roomID, c.AgentID, n.ClientMessageID)
		if err != nil || ok {
			return PostResult{Event: ev, Duplicate: ok, TextDiffers: ok && ev.Text != n.Text}, err
		}
	}
	if n.ReplyTo != 0 {
		if _, ok, err := tx.Event(roomID, n.ReplyTo); err != nil {
			return PostResult{}, err
		} else if !ok {
			return PostResult{}, invalidArg(field+"reply_to", "%sreply_to %d is not an event of room %s", field, n.ReplyTo, roomID).
				WithHint("give the event_seq of an event of this room (see get_room_events), or leave reply_to out")
		}
	}
	to, err := sn.resolveRecipients(n.To, field)
	if err != nil {
		return PostResult{}, err
	}
	if n.Interrupt && len(to) == 0 {
		return PostResult{}, invalidArg(field+"interrupt", "%sinterrupt needs recipients: address the note to the members to interrupt", field).
			WithHint("an interrupt ends its recipients' wait_for_turn; a note to the whole room interrupts nobody")
	}
	channel, err := sn.channel(n.Channel, field)
	if err != nil {
		return PostResult{}, err
	}
	stored := channel.Name
	if stored == DefaultChannel {
		stored = ""
	}
	ev, err := appendEvent(tx, Event{RoomID: roomID, TurnID: sn.room.TurnID, Type: EventNote, From: c.AgentID, Text: n.Text,
		MessageType: n.Type, Ref: n.ReplyTo, Data: n.Metadata, ClientMessageID: n.ClientMessageID, CreatedAt: sn.now,
		Recipients: to, Interrupt: n.Interrupt, Channel: stored})
	if err != nil {
		return PostResult{}, err
	}
	if err := sn.address(tx, ev); err != nil {
		return PostResult{}, err
	}
	return PostResult{Event: ev}, sn.retain(tx, channel)
}

// validate checks a note's fields before anything is read or written;
// field prefixes the names of bad fields (outbox[2]. in a Sync).
func (n Note) validate(field string) error {
	if problem := textProblem(n.Text, MaxNoteLen, true); problem != "" {
		return invalidArg(field+"text", "%stext %s", field, problem)
	}
	if n.Type != "" {
		if err := checkNoteType(field+"message_type", n.Type); err != nil {
			return err
		}
	}
	if n.ReplyTo < 0 {
		return invalidArg(field+"reply_to", "%sreply_to must be an event_seq (positive), got %d", field, n.ReplyTo)
	}
	if len(n.Metadata) > 0 {
		if len(n.Metadata) > MaxMetadataLen {
			return invalidArg(field+"metadata", "%smetadata is %d bytes; at most %d are allowed", field, len(n.Metadata), MaxMetadataLen)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(n.Metadata, &obj); err != nil || obj == nil {
			return invalidArg(field+"metadata", "%smetadata must be a JSON object, for example {\"pr\": 42}", field)
		}
	}
	if n.ClientMessageID != "" {
		if err := validateAgentID(field+"client_message_id", n.ClientMessageID); err != nil {
			return err
		}
	}
	if len(n.To) > MaxRecipients {
		return invalidArg(field+"to", "%sto names %d recipients; at most %d are allowed", field, len(n.To), MaxRecipients).
			WithHint("post to the whole room instead (name no recipient)")
	}
	for i, name := range n.To {
		if err := checkLen(field+"to["+strconv.Itoa(i)+"]", name, MaxAgentIDLen); err != nil {
			return err
		}
	}
	if n.Channel != "" {
		return validateChannelName(field+"channel", n.Channel)
	}
	return nil
}

// Leave removes the caller from the room's sequence. A holder must release or
// pass first. When the stick is reserved for the caller, the reservation moves
// on to the next active member other than the one who handed it over (the
// pending handoff with it), or the room becomes idle.
//
// Leaving a room one is not a member of (again, say) is unknown_member
// saying there is nothing to leave.
//
// Errors: invalid_argument, room_not_found, room_closed, unknown_member, stick_held.
func (s *Service) Leave(ctx context.Context, c Caller, roomID string) error {
	if err := s.act(ActionLeave, c); err != nil {
		return err
	}
	return s.updateAs(ctx, c, roomID, false, (*snapshot).leaver, func(tx Tx, sn *snapshot) error {
		return sn.leave(tx, c.AgentID, nil)
	})
}

// leave removes the member agent from the room (see Leave) and from sn,
// or returns stick_held when it holds the stick.
// removed, when set, records that the member was removed by another (see
// RemoveMember) rather than left.
func (sn *snapshot) leave(tx Tx, agent string, removed *RemovedData) error {
	r := &sn.room
	if r.State == StateOwned && r.Owner == agent {
		return sn.describe(Errorf(CodeStickHeld, "you hold the stick; release or pass it before leaving")).
			WithHint("release_stick with a handoff, then leave")
	}
	if r.State == StateReserved && r.ReservedFor == agent {
		if next := sn.next(agent, sn.priorOwner()); next != nil {
			r.ReservedFor, r.SequenceIndex = next.AgentID, next.Ordinal
			r.ClaimExpiresAt = sn.now.Add(sn.policy.ClaimTTL)
		} else {
			r.State, r.ReservedFor, r.ClaimExpiresAt = StateIdle, "", time.Time{}
		}
		r.UpdatedAt = sn.now
		if err := saveRoom(tx, *r); err != nil {
			return err
		}
	}
	if err := deleteMember(tx, r.ID, agent); err != nil {
		return err
	}
	sn.members = slices.DeleteFunc(sn.members, func(m Member) bool { return m.AgentID == agent })
	tx.Ring(r.ID, "")
	ev := Event{RoomID: r.ID, TurnID: r.TurnID, Type: EventLeave, From: agent, To: r.ReservedFor, CreatedAt: sn.now}
	if removed != nil {
		ev.Reason, ev.Data = ReasonRemoved, encodeData(*removed)
	}
	_, err := appendEvent(tx, ev)
	return err
}

// CloseResult reports a close: a room closed, or (for an agent) a close
// asked of the member responsible for the room's conclusion.
type CloseResult struct {
	RoomID   string `json:"room_id"`
	EventSeq int64  `json:"event_seq"`
	// ClosedAt is when the room closed; zero when it did not (see
	// ConclusionRequested).
	ClosedAt time.Time `json:"closed_at,omitzero"`
	// Revised is true when the room was already closed and this call revised its conclusion.
	Revised bool `json:"revised"`
	// DocVersion is the document version holding the conclusion in its
	// Conclusion section; 0 when this close wrote none.
	DocVersion int64 `json:"doc_version,omitempty"`
	// ConclusionRequested is true when the room was not closed: the
	// caller asked, and the stick went to Concluder, the member
	// responsible for the conclusion, with a handoff asking for it
	// (EventSeq is that pass event). The room closes when that member
	// closes it, with a conclusion.
	ConclusionRequested bool   `json:"conclusion_requested,omitempty"`
	Concluder           string `json:"concluder,omitempty"`
}

// Close ends a room for good: no more turns, waiters get closed, the log and
// the document stay readable (and no longer writable), and a later join at
// the path (or by the name) starts a new room. A conclusion is also written into the
// document's "## Conclusion" section, replacing one that exists, in the
// same transaction (its own "#" and "##" headings become "###" and
// "####", so that all of it stays in the section). The holder may close; while another member holds the
// stick (even with an expired lease, since a timeout never revokes) nobody
// else may, unless its process is proven gone. Closing a closed room
// records a revised reason and conclusion, and revises the document's
// Conclusion section.
//
// So closes an operator, and a Service acting for no principal. For a
// principal that is no operator (an agent), the room's concluder decides
// (see Room.Concluder): in a room that names none, closing is forbidden.
// The concluder closes (or revises) as above, and only with a conclusion.
// Any other member asks instead: in its own turn (it holds the stick, or
// the stick is free or reserved for it) the stick goes to the concluder
// with a handoff asking for the conclusion, the caller's reason and its
// conclusion as a draft, and the room stays open (ConclusionRequested).
//
// Errors: invalid_argument (reason, conclusion, also when the conclusion
// would make the document too long, or when the concluder gives none),
// room_not_found, room_closed (a member asking to close a closed room),
// unknown_member (also a concluder that cannot take the stick), stick_held,
// forbidden.
func (s *Service) Close(ctx context.Context, c Caller, roomID, reason, conclusion string) (CloseResult, error) {
	if err := s.act(ActionClose, c); err != nil {
		return CloseResult{}, err
	}
	if err := checkFreeText("reason", reason, MaxReasonLen, false); err != nil {
		return CloseResult{}, err
	}
	if err := checkFreeText("conclusion", conclusion, MaxConclusion, false); err != nil {
		return CloseResult{}, err
	}
	var out CloseResult
	err := s.update(ctx, c, roomID, true, func(tx Tx, sn *snapshot) error {
		r := &sn.room
		if !s.operates() {
			asked, err := s.agentClose(tx, sn, c, reason, conclusion)
			if err != nil || asked != nil {
				if asked != nil {
					out = *asked
				}
				return err
			}
		}
		out.Revised = r.State == StateClosed
		if r.State == StateOwned && r.Owner != c.AgentID && sn.ownerStatus != procid.Gone {
			e := sn.describe(Errorf(CodeStickHeld, "%s holds the stick; only the holder may close the room now", r.Owner))
			if sn.takeoverReason() != "" {
				return e.WithHint("its lease expired: take over with takeover_stick first (a timeout never revokes by itself), then close")
			}
			return e.WithHint("ask the holder to close it, or wait until the stick is free")
		}
		ev := Event{RoomID: r.ID, TurnID: r.TurnID, Type: EventClose, From: c.AgentID, Reason: reason, Text: conclusion, CreatedAt: sn.now}
		var doc *Document
		if strings.TrimSpace(conclusion) != "" {
			cur, err := currentDoc(tx, r.ID)
			if err != nil {
				return err
			}
			content := replaceSection(cur.Content, ConclusionSection, nested(conclusion))
			if len(content) > MaxDocLen {
				return invalidArg("conclusion", "the conclusion would make the room document %d bytes; at most %d are allowed", len(content), MaxDocLen).
					WithHint("shorten the conclusion, or shorten the document with update_room_doc first")
			}
			if content != cur.Content {
				doc = &Document{DocVersion: DocVersion{RoomID: r.ID, Version: cur.Version + 1, Author: c.AgentID,
					Op: DocConclusion, Size: len(content), CreatedAt: sn.now}, Content: content}
				ev.Data = encodeData(CloseData{DocVersion: doc.Version})
			}
		}
		ev, err := appendEvent(tx, ev)
		if err != nil {
			return err
		}
		if doc != nil {
			doc.EventSeq = ev.Seq
			if err := tx.SaveDoc(*doc); err != nil {
				return err
			}
			out.DocVersion = doc.Version
		}
		if !out.Revised {
			r.State, r.Owner, r.ReservedFor, r.LeaseID = StateClosed, "", "", ""
			r.LeaseExpiresAt, r.ClaimExpiresAt, r.PendingHandoffSeq, r.GrantSeq = time.Time{}, time.Time{}, 0, 0
			r.ClosedAt = sn.now
		}
		r.UpdatedAt = sn.now
		out.RoomID, out.EventSeq, out.ClosedAt = r.ID, ev.Seq, r.ClosedAt
		tx.Ring(r.ID, "")
		return saveRoom(tx, *r)
	})
	return out, err
}

// SetPolicy changes a room's timeouts and returns the effective policy.
// While the stick is held only its holder may change them, and while it is
// reserved only the member it is reserved for; when the room is idle any
// member may. A change never shortens a lease already granted nor the
// claim deadline of a reservation already made: the new values apply from
// the next grant, reservation or renewal, and a renewal never ends before
// the lease it renews.
//
// Errors: invalid_argument (the offending field), room_not_found,
// room_closed, unknown_member, stick_held.
func (s *Service) SetPolicy(ctx context.Context, c Caller, roomID string, u PolicyUpdate) (Policy, error) {
	if err := s.act(ActionSetPolicy, c); err != nil {
		return Policy{}, err
	}
	var out Policy
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		if err := sn.mayChangePolicy(c.AgentID); err != nil {
			return err
		}
		stored, err := u.apply(sn.room.Policy)
		if err != nil {
			return err
		}
		eff := stored.Effective(s.defaults)
		if err := eff.Validate(); err != nil {
			return err
		}
		sn.room.Policy, sn.room.UpdatedAt = stored, sn.now
		if err := saveRoom(tx, sn.room); err != nil {
			return err
		}
		tx.Ring(roomID, "")
		data := encodeData(eff)
		_, err = appendEvent(tx, Event{RoomID: roomID, TurnID: sn.room.TurnID, Type: EventPolicy, From: c.AgentID, Data: data, CreatedAt: sn.now})
		out = eff
		return err
	})
	return out, err
}

// mayChangePolicy returns stick_held unless agent may change the room's
// policy now: the holder while the stick is held, the recipient while it
// is reserved, any member while the room is idle. Otherwise a member that
// is not holding could shorten the lease and take the stick from a holder
// working on time.
func (sn *snapshot) mayChangePolicy(agent string) error {
	r := sn.room
	var e *Error
	who := r.Owner
	switch {
	case r.State == StateOwned && r.Owner != agent:
		e = sn.describe(Errorf(CodeStickHeld, "%s holds the stick; only the holder may change the room's policy now", r.Owner))
	case r.State == StateReserved && r.ReservedFor != agent:
		who = r.ReservedFor
		e = sn.describe(Errorf(CodeStickHeld, "the stick is reserved for %s; only it may change the room's policy now", r.ReservedFor))
	default:
		return nil
	}
	if sn.takeoverReason() != "" {
		return e.WithHint("takeover is open: take the stick over with takeover_stick first, then change the policy")
	}
	return e.WithHint("ask %s to change it, or change it once the room is idle", who)
}

// ReorderMembers changes the member sequence: the listed members first, in
// the given order, then everyone else in their current order.
//
// Errors: invalid_argument (empty or duplicate ids), room_not_found,
// room_closed, unknown_member (a listed id is not a member).
func (s *Service) ReorderMembers(ctx context.Context, c Caller, roomID string, order []string) ([]MemberStatus, error) {
	if err := s.act(ActionReorderMembers, c); err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return nil, invalidArg("agent_ids", "agent_ids must list at least one member")
	}
	if len(order) > MaxOrderLen {
		return nil, invalidArg("agent_ids", "agent_ids lists %d ids; at most %d are allowed", len(order), MaxOrderLen)
	}
	seen := make(map[string]bool, len(order))
	for i, id := range order {
		if err := validateAgentID("agent_ids", id); err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, invalidArg("agent_ids", "agent_ids lists %s twice (positions %d and earlier)", id, i)
		}
		seen[id] = true
	}
	var out []MemberStatus
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		for _, id := range order {
			if sn.member(id) == nil {
				return sn.describe(Errorf(CodeUnknownMember, "%s is not a member of this room", id)).With("agent_id", id)
			}
		}
		reordered := make([]Member, 0, len(sn.members))
		for _, id := range order {
			reordered = append(reordered, *sn.member(id))
		}
		for _, m := range sn.members {
			if !seen[m.AgentID] {
				reordered = append(reordered, m)
			}
		}
		pointed := ""
		for _, m := range sn.members {
			if m.Ordinal == sn.room.SequenceIndex {
				pointed = m.AgentID
			}
		}
		ids := make([]string, len(reordered))
		for i := range reordered {
			if reordered[i].AgentID == pointed {
				sn.room.SequenceIndex = i + 1
			}
			reordered[i].Ordinal = i + 1
			ids[i] = reordered[i].AgentID
			if err := saveMember(tx, reordered[i]); err != nil {
				return err
			}
		}
		sn.members = reordered
		sn.room.UpdatedAt = sn.now
		if err := saveRoom(tx, sn.room); err != nil {
			return err
		}
		tx.Ring(roomID, "")
		data := encodeData(ReorderData{AgentIDs: ids})
		if _, err := appendEvent(tx, Event{RoomID: roomID, TurnID: sn.room.TurnID, Type: EventReorder, From: c.AgentID, Data: data, CreatedAt: sn.now}); err != nil {
			return err
		}
		st, err := s.status(tx, sn)
		out = st.Members
		return err
	})
	return out, err
}

// memberUpdate runs fn in a write transaction for a member of an open room,
// after refreshing the caller's presence and, when the caller holds the
// stick, renewing its lease once that is due (see attend).
func (s *Service) memberUpdate(ctx context.Context, c Caller, roomID string, fn func(Tx, *snapshot) error) error {
	return s.update(ctx, c, roomID, false, fn)
}

func (s *Service) update(ctx context.Context, c Caller, roomID string, allowClosed bool, fn func(Tx, *snapshot) error) error {
	return s.updateAs(ctx, c, roomID, allowClosed, (*snapshot).memberOf, fn)
}

// updateAs is update with the membership check member, which returns the
// caller's member record or the error to report.
func (s *Service) updateAs(ctx context.Context, c Caller, roomID string, allowClosed bool,
	member func(*snapshot, string) (*Member, error), fn func(Tx, *snapshot) error) error {
	if err := c.validate(); err != nil {
		return err
	}
	if err := requireRoomID(roomID); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		if sn.room.State == StateClosed && !allowClosed {
			return sn.closedErr()
		}
		m, err := member(sn, c.AgentID)
		if err != nil {
			return err
		}
		if err := sn.vouch(c); err != nil {
			return err
		}
		if err := sn.touch(tx, m); err != nil {
			return err
		}
		if err := fn(tx, sn); err != nil {
			return err
		}
		return sn.attend(tx, c)
	})
}

// leaver returns the member record of a caller about to leave; one that is
// no member has nothing to leave, which is no reason to join.
func (sn *snapshot) leaver(agent string) (*Member, error) {
	if m := sn.member(agent); m != nil {
		return m, nil
	}
	return nil, sn.describe(Errorf(CodeUnknownMember, "%s is not a member of room %s (it left, or never joined): there is nothing to leave", agent, sn.room.ID)).
		With("agent_id", agent).WithHint("nothing to do; list_rooms shows the rooms and their members")
}

func checkFreeText(field, s string, max int, required bool) error {
	if problem := textProblem(s, max, required); problem != "" {
		return invalidArg(field, "%s %s", field, problem)
	}
	return nil
}
