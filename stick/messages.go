package stick

import (
	"context"
	"slices"
	"strconv"
	"strings"
)

// MaxRecipients bounds how many members one note names.
const MaxRecipients = 32

// MaxAddressedInResult bounds how many addressed notes a wait_for_turn
// result carries (the newest ones); sync gives the rest.
const MaxAddressedInResult = 20

// resolveRecipients turns a note's To into agent ids of sn's members, in
// the order given and without repeats: an agent id, a handle, or an
// unambiguous prefix of a display name (or of an agent id); the
// BroadcastRecipient (or nothing) is the whole room, which is no
// recipient at all. The sender may name itself. field prefixes bad
// fields' names.
//
// Errors: invalid_argument naming the members, for a name that matches
// none or several.
func (sn *snapshot) resolveRecipients(to []string, field string) ([]string, error) {
	var out []string
	for i, name := range to {
		name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "@"))
		if name == "" || strings.EqualFold(name, BroadcastRecipient) {
			continue
		}
		id, err := sn.recipient(name)
		if err != nil {
			return nil, err.With("field", field+"to["+strconv.Itoa(i)+"]")
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// recipient finds the one member name names (see resolveRecipients).
func (sn *snapshot) recipient(name string) (string, *Error) {
	for _, m := range sn.members {
		if m.AgentID == name || (m.Handle != "" && m.Handle == name) {
			return m.AgentID, nil
		}
	}
	var found []string
	lower := strings.ToLower(name)
	for _, m := range sn.members {
		if strings.HasPrefix(strings.ToLower(m.DisplayName), lower) || strings.HasPrefix(m.AgentID, name) ||
			(m.Handle != "" && strings.HasPrefix(m.Handle, lower)) {
			found = append(found, m.AgentID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", Errorf(CodeInvalidArgument, "no member of room %s is named %s; its members are %s",
			sn.room.ID, Quote(name), sn.memberNames()).
			WithHint("address a member by its agent_id, handle or display name (see get_room_state), or name no recipient to post to the whole room")
	default:
		return "", Errorf(CodeInvalidArgument, "%s names several members of room %s (%s); its members are %s",
			Quote(name), sn.room.ID, strings.Join(found, ", "), sn.memberNames()).
			WithHint("give more of the name, or the agent_id")
	}
}

// memberNames lists sn's members for a message: each agent id, with its
// handle and display name when it has them.
func (sn *snapshot) memberNames() string {
	if len(sn.members) == 0 {
		return "none"
	}
	names := make([]string, 0, len(sn.members))
	for _, m := range sn.members {
		n := m.AgentID
		var also []string
		if m.Handle != "" {
			also = append(also, "@"+m.Handle)
		}
		if m.DisplayName != "" {
			also = append(also, Quote(m.DisplayName))
		}
		if len(also) > 0 {
			n += " (" + strings.Join(also, ", ") + ")"
		}
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// AddressedTo reports whether e is a note addressed to agent by name.
func (e Event) AddressedTo(agent string) bool {
	return e.Type == EventNote && slices.Contains(e.Recipients, agent)
}

// address records a posted note on each recipient's member row (what it
// has not read yet, see Member.AddressedSeq) and rings their bells, so a
// waiting recipient hears of it at once.
func (sn *snapshot) address(tx Tx, ev Event) error {
	for _, id := range ev.Recipients {
		m := sn.member(id)
		if m == nil {
			continue
		}
		m.AddressedSeq = ev.Seq
		if ev.Interrupt {
			m.InterruptSeq = ev.Seq
		}
		if err := sn.saveMember(tx, m); err != nil {
			return err
		}
		tx.Ring(sn.room.ID, id)
	}
	return nil
}

// splitAddressed moves the notes of evs addressed to agent out of evs,
// keeping both in order; evs itself is rest when none is addressed, the
// common case, which then copies nothing.
func splitAddressed(evs []Event, agent string) (addressed, rest []Event) {
	if !slices.ContainsFunc(evs, func(e Event) bool { return e.AddressedTo(agent) }) {
		return nil, evs
	}
	rest = make([]Event, 0, len(evs))
	for _, e := range evs {
		if e.AddressedTo(agent) {
			addressed = append(addressed, e)
		} else {
			rest = append(rest, e)
		}
	}
	return addressed, rest
}

// addressedScan bounds how many of a room's newest notes addressed reads
// to find those addressed to a member.
const addressedScan = 200

// addressed returns the newest notes addressed to agent in the room past
// its sync cursor readThrough, oldest first, at most MaxAddressedInResult
// of them, from the room's newest addressedScan notes.
func (s *Service) addressed(ctx context.Context, agent, roomID string, readThrough int64) ([]Event, error) {
	var out []Event
	err := s.store.View(ctx, func(tx Tx) error {
		evs, err := tx.History(HistoryQuery{RoomID: roomID, Types: []EventType{EventNote}, Limit: addressedScan})
		if err != nil {
			return err
		}
		out = out[:0]
		for _, e := range evs {
			if e.Seq > readThrough && e.AddressedTo(agent) {
				out = append(out, e)
			}
		}
		return nil
	})
	if len(out) > MaxAddressedInResult {
		out = out[len(out)-MaxAddressedInResult:]
	}
	return out, err
}

// told records that the caller was given the notes addressed to it up to
// seq in a result, so that its session is not woken for them (see
// ClaimWake).
func (s *Service) told(ctx context.Context, c Caller, roomID string, seq int64) error {
	return s.store.Update(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		m := sn.member(c.AgentID)
		if m == nil || m.WokenSeq >= seq {
			return nil
		}
		m.WokenSeq = seq
		return sn.saveMember(tx, m)
	})
}

// Addressed returns the notes addressed to the caller in the room that it
// has not been given yet (past its sync cursor), oldest first, at most
// MaxAddressedInResult of the newest: what a frontend shows a member
// first. Reading them does not move the cursor.
//
// Errors: invalid_argument, room_not_found, unknown_member.
func (s *Service) Addressed(ctx context.Context, c Caller, roomID string) ([]Event, error) {
	if err := s.act(ActionAddressed, c); err != nil {
		return nil, err
	}
	var unread bool
	var cursor int64
	err := s.memberView(ctx, c, roomID, func(m *Member) {
		unread, cursor = m.AddressedSeq > m.SyncCursor, m.SyncCursor
	})
	if err != nil || !unread {
		return nil, err
	}
	return s.addressed(ctx, c.AgentID, roomID, cursor)
}
