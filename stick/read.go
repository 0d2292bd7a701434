package stick

import (
	"context"
	"time"

	"github.com/stickhq/stick/workspace"
)

// RoomStatus is the authoritative view of one room: stored projection plus
// derived state, members with their activity, and the pending handoff.
type RoomStatus struct {
	RoomID string `json:"room_id"`
	// CanonicalPath is the room's path; "" for a named room.
	CanonicalPath string `json:"canonical_path"`
	// RoomKey names the room's workspace the same way on every host (see
	// Room.Key); "" for a named room.
	RoomKey string `json:"room_key,omitempty"`
	// RoomName is the name of a named room; "" for a room of a path.
	RoomName string    `json:"room_name,omitempty"`
	State    RoomState `json:"state"`
	// StoredState is the projection's own state (idle, owned, reserved, closed).
	StoredState   RoomState  `json:"stored_state"`
	Owner         string     `json:"owner,omitempty"`
	ReservedFor   string     `json:"reserved_for,omitempty"`
	TurnID        int64      `json:"turn_id"`
	SequenceIndex int        `json:"sequence_index"`
	LeaseExpires  *time.Time `json:"lease_expires_at,omitempty"`
	ClaimExpires  *time.Time `json:"claim_expires_at,omitempty"`
	// Takeover is the reason takeover is open, "" when it is not.
	Takeover TakeoverReason `json:"takeover_reason,omitempty"`
	// PendingHandoff is the release or pass event the next claimant receives.
	PendingHandoff *Event `json:"pending_handoff,omitempty"`
	// Concluder is the member responsible for the room's conclusion (see
	// Room.Concluder); "" when the room names none.
	Concluder string `json:"concluder,omitempty"`
	// Members are the room's members in sequence order, the order the
	// stick goes round in (see Ahead).
	Members      []MemberStatus `json:"members"`
	Policy       Policy         `json:"policy"`
	LastEventSeq int64          `json:"last_event_seq"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	ClosedAt     *time.Time     `json:"closed_at,omitempty"`
}

// MemberStatus is one member as a reader sees it.
type MemberStatus struct {
	AgentID string `json:"agent_id"`
	Ordinal int    `json:"ordinal"`
	// Status is active, away, inactive or gone (MemberActive and the
	// others): only active and away members can receive the stick.
	Status string `json:"status"`
	// TurnRole is "holder" for the member holding the stick, "reserved" for the reserved recipient.
	TurnRole    string      `json:"turn_role,omitempty"`
	Kind        SessionKind `json:"session_kind"`
	DisplayName string      `json:"display_name,omitempty"`
	// Handle is the short name the member chose (see SetHandle); "" when none.
	Handle string `json:"handle,omitempty"`
	// Standby is true while the member stays in the room without taking
	// turns by itself (see SetStandby).
	Standby bool `json:"standby,omitempty"`
	// Wake says how the member's harness session can be woken and how
	// the last wake went; nil when it cannot be woken.
	Wake       *WakeStatus `json:"wake,omitempty"`
	JoinedAt   time.Time   `json:"joined_at"`
	LastSeenAt time.Time   `json:"last_seen_at"`
	// IdleMS is how long ago the member last called, in milliseconds.
	IdleMS int64 `json:"idle_ms"`
}

// RoomSummary is the cheap per-room line of ListRooms: the stored
// ownership fields, presence, and processes judged by cached verdicts (at
// most one liveness poll old), so listing many rooms stays cheap.
type RoomSummary struct {
	RoomID string `json:"room_id"`
	// CanonicalPath is the room's path; "" for a named room.
	CanonicalPath string `json:"canonical_path"`
	// RoomKey names the room's workspace the same way on every host (see
	// Room.Key); "" for a named room.
	RoomKey string `json:"room_key,omitempty"`
	// RoomName is the name of a named room; "" for a room of a path.
	RoomName    string    `json:"room_name,omitempty"`
	State       RoomState `json:"state"`
	Owner       string    `json:"owner,omitempty"`
	ReservedFor string    `json:"reserved_for,omitempty"`
	TurnID      int64     `json:"turn_id"`
	// Concluder is the member responsible for the room's conclusion;
	// "" when the room names none.
	Concluder string `json:"concluder,omitempty"`
	// Members counts the room's members; Joined names them, in sequence
	// order: who has joined a team's session.
	Members int      `json:"members"`
	Joined  []string `json:"joined"`
	// ActiveMembers counts the members that take turns: those whose
	// status is active or away (see MemberStatus); AwayMembers counts
	// the away ones among them.
	ActiveMembers int       `json:"active_members"`
	AwayMembers   int       `json:"away_members"`
	UpdatedAt     time.Time `json:"updated_at"`
	// LastEventAt is when the room's newest event (a note, a handoff, a
	// join, ...) was logged: with UpdatedAt, the room's last activity.
	LastEventAt time.Time `json:"last_event_at"`
}

// EventPage is one page of a room's event log.
type EventPage struct {
	Events []Event `json:"events"`
	// Cursor is the Seq to pass as after for the next page.
	Cursor  int64 `json:"cursor"`
	HasMore bool  `json:"has_more"`
}

// RoomState returns the authoritative state of a room. It probes the
// holder's and the reserved recipient's processes; the other present
// members' processes are judged by verdicts at most one liveness poll old.
//
// Errors: invalid_argument, room_not_found.
func (s *Service) RoomState(ctx context.Context, roomID string) (RoomStatus, error) {
	if err := s.allow(ActionRoomState); err != nil {
		return RoomStatus{}, err
	}
	if err := requireRoomID(roomID); err != nil {
		return RoomStatus{}, err
	}
	var out RoomStatus
	err := s.store.View(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		out, err = s.status(tx, sn)
		return err
	})
	return out, err
}

func (s *Service) status(tx Tx, sn *snapshot) (RoomStatus, error) {
	r := sn.room
	st := RoomStatus{
		RoomID: r.ID, CanonicalPath: r.Path, RoomKey: r.Key, RoomName: r.Name, State: sn.state(), StoredState: r.State,
		Owner: r.Owner, ReservedFor: r.ReservedFor, TurnID: r.TurnID, SequenceIndex: r.SequenceIndex, Concluder: r.Concluder,
		Takeover: sn.takeoverReason(), PendingHandoff: sn.pending, Policy: sn.policy,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Members: make([]MemberStatus, 0, len(sn.members)),
	}
	if !r.LeaseExpiresAt.IsZero() {
		st.LeaseExpires = &r.LeaseExpiresAt
	}
	if !r.ClaimExpiresAt.IsZero() {
		st.ClaimExpires = &r.ClaimExpiresAt
	}
	if !r.ClosedAt.IsZero() {
		st.ClosedAt = &r.ClosedAt
	}
	for i := range sn.members {
		m := &sn.members[i]
		ms := sn.statusOf(m)
		st.Members = append(st.Members, ms)
	}
	var err error
	st.LastEventSeq, err = tx.LastSeq(r.ID)
	return st, err
}

// ListRooms returns the rooms on the ancestor chain from path up to its
// workspace root and the rooms nested below that root, deepest-first along
// the chain, then the open named rooms, which are joined by name from
// anywhere; with path "" it returns every room, named ones too. Closed
// rooms are included so their logs stay discoverable (closed named rooms
// only with path ""). Processes are judged by cached verdicts, as in
// RoomSummary. The Service's Workspaces resolves path.
//
// Errors: invalid_argument (path).
func (s *Service) ListRooms(ctx context.Context, path string) ([]RoomSummary, error) {
	if err := s.allow(ActionListRooms); err != nil {
		return nil, err
	}
	var chain []string
	var root string
	if path != "" {
		res, err := s.resolve(path)
		if err != nil {
			return nil, err
		}
		chain, root = workspace.Ancestors(res.Path, res.Root), res.Root
	}
	var out []RoomSummary
	err := s.store.View(ctx, func(tx Tx) error {
		var rooms []Room
		if path != "" {
			at, err := tx.RoomsAt(chain, true)
			if err != nil {
				return err
			}
			// Deepest first along the chain.
			for _, p := range chain {
				for _, r := range at {
					if r.Path == p {
						rooms = append(rooms, r)
					}
				}
			}
		}
		below, err := tx.RoomsUnder(root, true)
		if err != nil {
			return err
		}
		if path != "" {
			named, err := tx.RoomsNamed("", false)
			if err != nil {
				return err
			}
			below = append(below, named...)
		}
		seen := make(map[string]bool, len(rooms))
		for _, r := range rooms {
			seen[r.ID] = true
		}
		for _, r := range below {
			if !seen[r.ID] {
				rooms = append(rooms, r)
			}
		}
		out, err = s.summaries(tx, s.reachable(rooms))
		return err
	})
	return out, err
}

// summaries sums rooms up for a list, their processes judged by cached
// verdicts (see RoomSummary).
func (s *Service) summaries(tx Tx, rooms []Room) ([]RoomSummary, error) {
	return s.summariesWatched(tx, rooms, nil)
}

// summariesWatched is summaries that also adds to w, when not nil, what
// would change the summaries with no commit (see watchSet).
func (s *Service) summariesWatched(tx Tx, rooms []Room, w *watchSet) ([]RoomSummary, error) {
	now := s.clock.Now()
	out := make([]RoomSummary, 0, len(rooms))
	for _, r := range rooms {
		ms, err := tx.Members(r.ID)
		if err != nil {
			return nil, err
		}
		sn := s.snapshotOf(r, ms, now)
		sn.probe = sn.verdict
		if r.State == StateOwned {
			sn.ownerStatus = sn.probeAgent(r.Owner)
		}
		if r.State == StateReserved {
			sn.recipientStatus = sn.probeAgent(r.ReservedFor)
		}
		if w != nil {
			w.add(sn)
		}
		sum := RoomSummary{
			RoomID: r.ID, CanonicalPath: r.Path, RoomKey: r.Key, RoomName: r.Name, State: sn.state(), Owner: r.Owner,
			ReservedFor: r.ReservedFor, TurnID: r.TurnID, Concluder: r.Concluder, Members: len(ms), UpdatedAt: r.UpdatedAt,
			Joined: make([]string, len(ms)),
		}
		for i := range ms {
			sum.Joined[i] = ms[i].AgentID
			switch sn.memberStatus(&ms[i]) {
			case MemberActive:
				sum.ActiveMembers++
			case MemberAway:
				sum.ActiveMembers++
				sum.AwayMembers++
			}
		}
		if sum.LastEventAt, err = tx.LastEventAt(r.ID); err != nil {
			return nil, err
		}
		out = append(out, sum)
	}
	return out, nil
}

// RoomsByKey returns the rooms whose key is key (see Room.Key), open and
// closed, oldest first: the rooms of one workspace, whichever host or path
// each was made at. Clones of one repository at two paths of one host are
// two rooms with one key; a hub matches the rooms of clients on different
// hosts by it. Processes are judged by cached verdicts, as in RoomSummary.
//
// Errors: invalid_argument (room_key empty or too long).
func (s *Service) RoomsByKey(ctx context.Context, key string) ([]RoomSummary, error) {
	if err := s.allow(ActionRoomsByKey); err != nil {
		return nil, err
	}
	if err := checkLen("room_key", key, workspace.MaxKeyLen); err != nil {
		return nil, err
	}
	if key == "" {
		return nil, invalidArg("room_key", "room_key must be non-empty").
			WithHint("use the room_key a join or a list returned, such as github.com/acme/api")
	}
	var out []RoomSummary
	err := s.store.View(ctx, func(tx Tx) error {
		rooms, err := tx.RoomsByKey(key, true)
		if err != nil {
			return err
		}
		out, err = s.summaries(tx, s.reachable(rooms))
		return err
	})
	return out, err
}

// RoomNamed returns the room named name: the open one, else the one of
// that name closed last, whose log and document stay readable.
//
// Errors: invalid_argument (name), room_not_found.
func (s *Service) RoomNamed(ctx context.Context, name string) (RoomSummary, error) {
	if err := s.allow(ActionRoomNamed); err != nil {
		return RoomSummary{}, err
	}
	if err := checkRoomName("name", name); err != nil {
		return RoomSummary{}, err
	}
	var out RoomSummary
	err := s.store.View(ctx, func(tx Tx) error {
		rooms, err := tx.RoomsNamed(name, true)
		if err != nil {
			return err
		}
		if rooms = s.reachable(rooms); len(rooms) == 0 {
			return Errorf(CodeRoomNotFound, "no room is named %s", name).With("name", name).
				WithHint("join by the name to create the room; a list of rooms shows the open named ones")
		}
		pick := rooms[len(rooms)-1]
		for _, r := range rooms {
			if r.State != StateClosed {
				pick = r
				break
			}
			if r.ClosedAt.After(pick.ClosedAt) {
				pick = r
			}
		}
		sums, err := s.summaries(tx, []Room{pick})
		if err == nil {
			out = sums[0]
		}
		return err
	})
	return out, err
}

// RoomEvents returns up to limit events of a room after the cursor after
// (0 for the beginning), oldest first. A limit of 0 means DefaultEventLimit;
// a negative one or one above MaxEventLimit is invalid_argument.
//
// Errors: invalid_argument, room_not_found.
func (s *Service) RoomEvents(ctx context.Context, roomID string, after int64, limit int) (EventPage, error) {
	if err := s.allow(ActionRoomEvents); err != nil {
		return EventPage{}, err
	}
	if err := requireRoomID(roomID); err != nil {
		return EventPage{}, err
	}
	if after < 0 {
		return EventPage{}, invalidArg("after", "after must be 0 or a previous cursor, got %d", after)
	}
	if limit < 0 || limit > MaxEventLimit {
		err := invalidArg("limit", "limit must be between 0 (the default, %d) and %d, got %d", DefaultEventLimit, MaxEventLimit, limit)
		if limit > 0 {
			err.WithHint("read more pages instead: after set to the cursor of the last one")
		}
		return EventPage{}, err
	}
	if limit == 0 {
		limit = DefaultEventLimit
	}
	var page EventPage
	err := s.store.View(ctx, func(tx Tx) error {
		if err := s.roomExists(tx, roomID); err != nil {
			return err
		}
		evs, err := tx.Events(roomID, after, limit+1)
		if err != nil {
			return err
		}
		page.HasMore = len(evs) > limit
		if page.HasMore {
			evs = evs[:limit]
		}
		if evs == nil {
			evs = []Event{}
		}
		page.Events, page.Cursor = evs, after
		if len(evs) > 0 {
			page.Cursor = evs[len(evs)-1].Seq
		}
		return nil
	})
	return page, err
}

// FollowEvents is RoomEvents that waits: when the room has no event after
// the cursor, it blocks until one commits (in any process) or ctx ends, and
// returns that page. It wakes on the room's log bell, so commits in other
// rooms cost it nothing. A watcher calls it in a loop with the returned cursor.
//
// Errors: as RoomEvents, and ctx's error when ctx ends.
func (s *Service) FollowEvents(ctx context.Context, roomID string, after int64, limit int) (EventPage, error) {
	if err := s.allow(ActionFollowEvents); err != nil {
		return EventPage{}, err
	}
	for {
		wake := s.watchLog(roomID)
		page, err := s.RoomEvents(ctx, roomID, after, limit)
		if err != nil || len(page.Events) > 0 {
			wake.stop()
			return page, err
		}
		select {
		case <-ctx.Done():
			wake.stop()
			return page, ctx.Err()
		case <-s.done:
			wake.stop()
			return page, nil
		case <-wake.bell:
		case <-wake.changed:
		case <-wake.refresh:
		}
		wake.stop()
	}
}

// statusOf returns m as a room's state shows it.
func (sn *snapshot) statusOf(m *Member) MemberStatus {
	r := sn.room
	ms := MemberStatus{
		AgentID: m.AgentID, Ordinal: m.Ordinal, Status: sn.memberStatus(m), Kind: m.Kind,
		DisplayName: m.DisplayName, JoinedAt: m.JoinedAt, LastSeenAt: m.LastSeenAt,
		IdleMS: sn.now.Sub(m.LastSeenAt).Milliseconds(), Handle: m.Handle, Standby: m.Standby, Wake: wakeStatus(m),
	}
	switch {
	case r.State == StateOwned && m.AgentID == r.Owner:
		ms.TurnRole = "holder"
	case r.State == StateReserved && m.AgentID == r.ReservedFor:
		ms.TurnRole = "reserved"
	}
	return ms
}
