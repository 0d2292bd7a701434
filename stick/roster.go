package stick

import (
	"context"
	"time"
)

// MaxRosterWant bounds the members WaitForMembers waits for: as many as
// one ReorderMembers call may order.
const MaxRosterWant = MaxOrderLen

// Roster is who has joined a room, as WaitForMembers answers: a team's
// session says who is there and whether the members it waits for have
// come.
type Roster struct {
	RoomID string `json:"room_id"`
	// RoomName is the name of a named room; "" for a room of a path.
	RoomName string    `json:"room_name,omitempty"`
	State    RoomState `json:"state"`
	// Concluder is the member responsible for the room's conclusion; ""
	// when the room names none.
	Concluder string `json:"concluder,omitempty"`
	// Members are the room's members in sequence order, each with its
	// status (active, away, inactive, gone).
	Members []MemberStatus `json:"members"`
	// Want is the number of members asked for; Reached is true when the
	// room has at least that many.
	Want    int  `json:"want"`
	Reached bool `json:"reached"`
	// Closed is true when the room is closed: no member will join it.
	Closed bool `json:"closed"`
	// LastEventSeq is the room's newest event: read the log after it to
	// follow what the members do next.
	LastEventSeq int64 `json:"last_event_seq"`
}

// WaitForMembers returns the room's roster once it has at least want
// members, or at once when it has, when the room is closed, or when
// maxWait is 0; otherwise it waits up to maxWait for members to join
// (Reached false when they did not). A member counts from its join until
// it leaves, whatever its status; the roster says each one's. Joins are
// commits that move the room's log, and they wake the wait, in any
// process sharing the store; a commit that moves no log costs one cheap
// read. Cancelling ctx ends the call with ctx's error; Shutdown ends it
// with the roster as it is.
//
// Errors: invalid_argument (min: want below 0 or above MaxRosterWant;
// wait_ms: maxWait below 0 or above MaxWaitLimit), room_not_found.
func (s *Service) WaitForMembers(ctx context.Context, roomID string, want int, maxWait time.Duration) (Roster, error) {
	if err := s.allow(ActionWaitForMembers); err != nil {
		return Roster{}, err
	}
	if err := requireRoomID(roomID); err != nil {
		return Roster{}, err
	}
	if want < 0 || want > MaxRosterWant {
		return Roster{}, invalidArg("min", "min must be between 0 and %d members, got %d", MaxRosterWant, want).
			WithHint("give the number of members the room should have, for example 2")
	}
	if maxWait < 0 || maxWait > MaxWaitLimit {
		return Roster{}, invalidArg("wait_ms", "wait_ms must be between 0 and %d (%v), got %d", MaxWaitLimit.Milliseconds(), MaxWaitLimit, maxWait.Milliseconds()).
			WithHint("ask again after an answer with reached false to wait longer")
	}
	changed := s.store.Changed()
	out, err := s.roster(ctx, roomID, want)
	if err != nil || out.Reached || out.Closed || maxWait == 0 {
		return out, err
	}
	deadline, stop := s.clock.Timer(maxWait)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-s.done:
			return out, nil
		case <-deadline:
			return s.roster(ctx, roomID, want)
		case <-changed:
		}
		changed = s.store.Changed()
		var seq int64
		err := s.briefView(ctx, func(tx Tx) (err error) {
			seq, err = tx.LastSeq(roomID)
			return err
		})
		if err != nil {
			return out, err
		}
		if seq == out.LastEventSeq {
			continue
		}
		if out, err = s.roster(ctx, roomID, want); err != nil || out.Reached || out.Closed {
			return out, err
		}
	}
}

// roster reads the room's roster, reached when it has want members.
func (s *Service) roster(ctx context.Context, roomID string, want int) (Roster, error) {
	var out Roster
	err := s.store.View(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		st, err := s.status(tx, sn)
		if err != nil {
			return err
		}
		out = Roster{RoomID: st.RoomID, RoomName: st.RoomName, State: st.State, Concluder: st.Concluder, Members: st.Members,
			Want: want, Reached: len(st.Members) >= want, Closed: st.StoredState == StateClosed, LastEventSeq: st.LastEventSeq}
		return nil
	})
	return out, err
}
