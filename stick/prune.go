package stick

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/stickhq/stick/procid"
)

// DefaultAbandonAfter is how long an open room must have gone without a
// call from any member before it counts as abandoned, when its path still
// exists or it is a named room.
const DefaultAbandonAfter = 30 * 24 * time.Hour

// AbandonReason says why a room counts as abandoned.
type AbandonReason string

// The reasons a room is abandoned.
const (
	// AbandonPathGone: the directory the room is for no longer exists, as
	// the Service's Workspaces resolves it.
	AbandonPathGone AbandonReason = "path_gone"
	// AbandonIdle: no member has called for longer than the idle limit.
	AbandonIdle AbandonReason = "idle"
)

// AbandonedRoom is an open room nobody can act in any more.
type AbandonedRoom struct {
	RoomID        string `json:"room_id"`
	CanonicalPath string `json:"canonical_path"`
	// RoomName is the name of a named room, which has no path.
	RoomName string        `json:"room_name,omitempty"`
	State    RoomState     `json:"state"`
	Reason   AbandonReason `json:"reason"`
	Members  int           `json:"members"`
	TurnID   int64         `json:"turn_id"`
	// LastActivity is the latest of the room's last change and its
	// members' last calls.
	LastActivity time.Time `json:"last_activity"`
	// EventSeq is the close event a prune appended; 0 when it only listed.
	EventSeq int64 `json:"event_seq,omitempty"`
}

// Describe says in words why the room is abandoned.
func (a AbandonedRoom) Describe(now time.Time) string {
	if a.Reason == AbandonPathGone {
		return "its path no longer exists"
	}
	return fmt.Sprintf("no member has called for %s", roughDuration(now.Sub(a.LastActivity)))
}

// roughDuration is d in the largest whole unit: "31 days", "5 hours".
func roughDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", d/time.Hour)
	}
	return fmt.Sprintf("%d minutes", d/time.Minute)
}

// abandoned reports why the room of sn is abandoned, or "" when it is not.
// A room is abandoned when it is open, no member could still act in it (none
// has a process proven alive, and none without proof either way called
// within the presence TTL), and either its path no longer exists or nobody
// has called for idleFor. A room someone could still come back to through
// its path is never abandoned by the path rule alone.
func (s *Service) abandoned(sn *snapshot, idleFor time.Duration) (AbandonReason, time.Time) {
	r := sn.room
	last := r.UpdatedAt
	for i := range sn.members {
		if sn.members[i].LastSeenAt.After(last) {
			last = sn.members[i].LastSeenAt
		}
	}
	if r.State == StateClosed {
		return "", last
	}
	for i := range sn.members {
		m := &sn.members[i]
		switch sn.probe(m.Process) {
		case procid.Alive:
			return "", last
		case procid.Gone:
		default:
			if sn.present(m) {
				return "", last
			}
		}
	}
	if r.Path != "" {
		if _, err := s.workspaces.Resolve(r.Path); errors.Is(err, fs.ErrNotExist) {
			return AbandonPathGone, last
		}
	}
	if sn.now.Sub(last) >= idleFor {
		return AbandonIdle, last
	}
	return "", last
}

func checkIdleFor(idleFor time.Duration) (time.Duration, error) {
	switch {
	case idleFor < 0:
		return 0, invalidArg("idle_for", "idle_for must be positive, got %v", idleFor)
	case idleFor == 0:
		return DefaultAbandonAfter, nil
	}
	return idleFor, nil
}

// AbandonedRooms lists the open rooms nobody can act in any more (see
// PruneRooms for the rule), oldest activity first. It changes nothing and
// probes every member's process, so it is for maintenance, not for every
// read. idleFor 0 means DefaultAbandonAfter.
//
// Errors: invalid_argument (idle_for).
func (s *Service) AbandonedRooms(ctx context.Context, idleFor time.Duration) ([]AbandonedRoom, error) {
	if err := s.allow(ActionAbandonedRooms); err != nil {
		return nil, err
	}
	idleFor, err := checkIdleFor(idleFor)
	if err != nil {
		return nil, err
	}
	var out []AbandonedRoom
	err = s.store.View(ctx, func(tx Tx) error {
		rooms, err := tx.RoomsUnder("", false)
		if err != nil {
			return err
		}
		for _, r := range s.reachable(rooms) {
			sn, err := s.load(tx, r.ID)
			if err != nil {
				return err
			}
			if why, last := s.abandoned(sn, idleFor); why != "" {
				out = append(out, AbandonedRoom{RoomID: r.ID, CanonicalPath: r.Path, RoomName: r.Name, State: sn.state(), Reason: why,
					Members: len(sn.members), TurnID: r.TurnID, LastActivity: last})
			}
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b AbandonedRoom) int { return a.LastActivity.Compare(b.LastActivity) })
	return out, err
}

// PruneRooms closes the open rooms nobody can act in any more and returns
// them. A room is abandoned when no member could still act in it (no
// member's process is proven alive, and no member whose process cannot be
// judged called within the presence TTL) and either the directory it is
// for no longer exists or nobody has called for idleFor (0 means
// DefaultAbandonAfter). Each room is closed in its own transaction, after
// the rule is checked again there, with a close event from c that says
// why; like any closed room it keeps its log and document, readable
// forever, and a later join at its path starts a new room. c need not be a
// member.
//
// Errors: invalid_argument (idle_for, the caller).
func (s *Service) PruneRooms(ctx context.Context, c Caller, idleFor time.Duration) ([]AbandonedRoom, error) {
	if err := s.act(ActionPruneRooms, c); err != nil {
		return nil, err
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	candidates, err := s.AbandonedRooms(ctx, idleFor)
	if err != nil {
		return nil, err
	}
	idleFor, _ = checkIdleFor(idleFor)
	var out []AbandonedRoom
	for _, a := range candidates {
		err := s.store.Update(ctx, func(tx Tx) error {
			sn, err := s.load(tx, a.RoomID)
			if err != nil {
				return err
			}
			why, last := s.abandoned(sn, idleFor)
			if why == "" {
				return nil // someone came back meanwhile
			}
			a.Reason, a.LastActivity, a.State = why, last, sn.state()
			r := &sn.room
			ev, err := appendEvent(tx, Event{RoomID: r.ID, TurnID: r.TurnID, Type: EventClose, From: c.AgentID,
				Reason: "abandoned: " + a.Describe(sn.now), CreatedAt: sn.now})
			if err != nil {
				return err
			}
			r.State, r.Owner, r.ReservedFor, r.LeaseID = StateClosed, "", "", ""
			r.LeaseExpiresAt, r.ClaimExpiresAt, r.PendingHandoffSeq, r.GrantSeq = time.Time{}, time.Time{}, 0, 0
			r.ClosedAt, r.UpdatedAt = sn.now, sn.now
			a.EventSeq = ev.Seq
			tx.Ring(r.ID, "")
			return saveRoom(tx, *r)
		})
		if err != nil {
			return out, err
		}
		if a.EventSeq != 0 {
			out = append(out, a)
		}
	}
	return out, nil
}
