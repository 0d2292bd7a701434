package stick

import (
	"context"
	"strings"
	"time"

	"github.com/stickhq/stick/procid"
)

// HeartbeatResult tells the holder how long its lease now lasts.
type HeartbeatResult struct {
	RoomID          string    `json:"room_id"`
	TurnID          int64     `json:"turn_id"`
	LeaseExpiresAt  time.Time `json:"lease_expires_at"`
	NextHeartbeatAt time.Time `json:"next_heartbeat_at"`
}

// ReleaseResult says where the stick went after a release or pass.
type ReleaseResult struct {
	RoomID string `json:"room_id"`
	// EventSeq is the release or pass event holding the handoff.
	EventSeq int64 `json:"event_seq"`
	// TurnID is the turn that just ended; the next grant starts TurnID+1.
	TurnID int64 `json:"turn_id"`
	// State is reserved when a recipient was chosen, idle otherwise.
	State          RoomState  `json:"room_state"`
	ReservedFor    string     `json:"reserved_for,omitempty"`
	ClaimExpiresAt *time.Time `json:"claim_expires_at,omitempty"`
}

func (l Lease) validate() error {
	if err := requireRoomID(l.RoomID); err != nil {
		return err
	}
	if err := checkLen("lease_id", l.LeaseID, MaxIDLen); err != nil {
		return err
	}
	if strings.TrimSpace(l.LeaseID) == "" {
		return invalidArg("lease_id", "lease_id must be non-empty").
			WithHint("use the lease_id of your your_turn or takeover result")
	}
	if l.TurnID < 1 {
		return invalidArg("expected_turn_id", "expected_turn_id must be a turn id of at least 1, got %d", l.TurnID).
			WithHint("use the turn_id of your your_turn or takeover result")
	}
	return nil
}

// Heartbeat extends the holder's lease to the policy's lease TTL from now
// (never earlier than the end already granted) and refreshes its presence. An expired lease can still be renewed as long as no
// takeover has committed; a holder whose process is proven gone cannot.
// A heartbeat that would move the lease by less than a second (a tenth of
// the lease TTL when that is shorter) and the presence by less than its
// grain changes nothing: it is answered from a read, as is a refusal.
//
// Errors, in order: invalid_argument, room_not_found, room_closed,
// turn_mismatch, stale_lease.
func (s *Service) Heartbeat(ctx context.Context, c Caller, l Lease) (HeartbeatResult, error) {
	if err := s.act(ActionHeartbeat, c); err != nil {
		return HeartbeatResult{}, err
	}
	var out HeartbeatResult
	if err := c.validate(); err != nil {
		return out, err
	}
	if err := l.validate(); err != nil {
		return out, err
	}
	// A refusal is final (a lease that is not current never becomes
	// current again) and a renewal within its grain changes nothing, so
	// both are answered from a read, without queueing behind writers.
	answered := false
	err := s.briefView(ctx, func(tx Tx) error {
		sn, err := s.holderSnapshot(tx, c, l)
		if err != nil {
			return err
		}
		if answered = !sn.heartbeatDue(c.AgentID); answered {
			out = sn.heartbeatResult()
		}
		return nil
	})
	if err != nil || answered {
		return out, err
	}
	err = s.holderUpdate(ctx, c, l, func(tx Tx, sn *snapshot) error {
		r := &sn.room
		r.LeaseExpiresAt = sn.renewedLease()
		r.UpdatedAt = sn.now
		if err := saveRoom(tx, *r); err != nil {
			return err
		}
		if err := sn.touch(tx, sn.member(c.AgentID)); err != nil {
			return err
		}
		out = sn.heartbeatResult()
		return nil
	})
	return out, err
}

// heartbeatResult is what a heartbeat answers for the holder of sn.
func (sn *snapshot) heartbeatResult() HeartbeatResult {
	r := sn.room
	return HeartbeatResult{RoomID: r.ID, TurnID: r.TurnID, LeaseExpiresAt: r.LeaseExpiresAt,
		NextHeartbeatAt: sn.now.Add(sn.policy.HeartbeatInterval)}
}

// holderSnapshot loads the room of l and checks that c holds it with l.
func (s *Service) holderSnapshot(tx Tx, c Caller, l Lease) (*snapshot, error) {
	sn, err := s.load(tx, l.RoomID)
	if err != nil {
		return nil, err
	}
	if err := sn.vouch(c); err != nil {
		return nil, err
	}
	if err := sn.checkLease(c.AgentID, l); err != nil {
		return nil, err
	}
	return sn, nil
}

// Release ends the caller's turn with a handoff and reserves the stick for
// the next member after it in sequence that takes turns (active, or a
// person who is away; never an inactive or gone member); with no such
// member the room becomes idle and the handoff waits for whoever claims
// next.
//
// Errors, in order: invalid_argument, room_not_found, room_closed,
// turn_mismatch, stale_lease, invalid_handoff.
func (s *Service) Release(ctx context.Context, c Caller, l Lease, h Handoff) (ReleaseResult, error) {
	if err := s.act(ActionRelease, c); err != nil {
		return ReleaseResult{}, err
	}
	return s.handOn(ctx, c, l, h, "")
}

// Pass ends the caller's turn with a handoff and reserves the stick for the
// named member, whose status must be active or away (not inactive or
// gone). The sequence resumes after that member.
//
// Errors, in order: invalid_argument, room_not_found, room_closed,
// turn_mismatch, stale_lease, invalid_handoff, unknown_member (the target is
// not a member, inactive, or gone).
func (s *Service) Pass(ctx context.Context, c Caller, l Lease, to string, h Handoff) (ReleaseResult, error) {
	if err := s.act(ActionPass, c); err != nil {
		return ReleaseResult{}, err
	}
	if err := validateAgentID("to_agent_id", to); err != nil {
		return ReleaseResult{}, err
	}
	if to == c.AgentID {
		return ReleaseResult{}, invalidArg("to_agent_id", "cannot pass the stick to yourself").
			WithHint("keep working and heartbeat, or release_stick to follow the sequence")
	}
	return s.handOn(ctx, c, l, h, to)
}

// holderUpdate runs fn in a write transaction after the holder's fencing
// checks: valid input, an existing open room, the current turn and lease.
func (s *Service) holderUpdate(ctx context.Context, c Caller, l Lease, fn func(Tx, *snapshot) error) error {
	if err := c.validate(); err != nil {
		return err
	}
	if err := l.validate(); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx Tx) error {
		sn, err := s.holderSnapshot(tx, c, l)
		if err != nil {
			return err
		}
		return fn(tx, sn)
	})
}

func (s *Service) handOn(ctx context.Context, c Caller, l Lease, h Handoff, to string) (ReleaseResult, error) {
	var out ReleaseResult
	err := s.holderUpdate(ctx, c, l, func(tx Tx, sn *snapshot) error {
		var err error
		out, err = s.handOnIn(tx, sn, c, h, to)
		return err
	})
	return out, err
}

// handOnIn ends the turn c holds in sn inside tx: a release (to "") or a
// pass to the member to, with the handoff h.
func (s *Service) handOnIn(tx Tx, sn *snapshot, c Caller, h Handoff, to string) (ReleaseResult, error) {
	var err error
	if err := h.Validate(); err != nil {
		return ReleaseResult{}, sn.describe(err.(*Error))
	}
	var next *Member
	typ := EventRelease
	if to != "" {
		typ = EventPass
		if next, err = sn.passTarget(to); err != nil {
			return ReleaseResult{}, err
		}
	} else {
		next = sn.next(c.AgentID)
	}
	ev := Event{RoomID: sn.room.ID, TurnID: sn.room.TurnID, Type: typ, From: c.AgentID, Handoff: &h, CreatedAt: sn.now}
	if next != nil {
		ev.To = next.AgentID
		if err := sn.standFor(tx, next); err != nil {
			return ReleaseResult{}, err
		}
	}
	if ev, err = appendEvent(tx, ev); err != nil {
		return ReleaseResult{}, err
	}
	if err := sn.touch(tx, sn.member(c.AgentID)); err != nil {
		return ReleaseResult{}, err
	}
	r := &sn.room
	r.Owner, r.LeaseID, r.LeaseExpiresAt, r.GrantSeq = "", "", time.Time{}, 0
	r.PendingHandoffSeq = ev.Seq
	r.UpdatedAt = sn.now
	out := ReleaseResult{RoomID: r.ID, EventSeq: ev.Seq, TurnID: r.TurnID}
	if next != nil {
		tx.Ring(r.ID, next.AgentID)
		r.State, r.ReservedFor, r.SequenceIndex = StateReserved, next.AgentID, next.Ordinal
		r.ClaimExpiresAt = sn.now.Add(sn.policy.ClaimTTL)
		claim := r.ClaimExpiresAt
		out.ReservedFor, out.ClaimExpiresAt = next.AgentID, &claim
	} else {
		tx.Ring(r.ID, "")
		r.State, r.ReservedFor, r.ClaimExpiresAt = StateIdle, "", time.Time{}
	}
	out.State = r.State
	return out, saveRoom(tx, *r)
}

// passTarget checks that to is a member that takes turns: active, or a
// person who is away (judged afresh).
func (sn *snapshot) passTarget(to string) (*Member, error) {
	m := sn.member(to)
	fail := func(why, format string, args ...any) error {
		return sn.describe(Errorf(CodeUnknownMember, format, args...)).With("to_agent_id", to).With("why", why).
			WithHint("pass to a member whose status is active or away (see get_room_state), or release_stick to follow the sequence")
	}
	switch why := sn.unfit(m); why {
	case "":
		return m, nil
	case notAMember:
		return nil, fail(why, "pass_stick target %s is not a member of this room", to)
	case MemberInactive:
		return nil, fail(why, "pass_stick target %s is inactive (last seen %s ago)", to, ago(sn.now, m.LastSeenAt))
	default:
		return nil, fail(why, "pass_stick target %s is gone: its process has exited", to)
	}
}

// notAMember is why a member that is none cannot take the stick.
const notAMember = "not_a_member"

// unfit says why m cannot be handed the stick, "" when it can: it is no
// member (nil: notAMember), it is inactive (MemberInactive), or its
// process is gone (MemberGone, judged afresh).
func (sn *snapshot) unfit(m *Member) string {
	switch {
	case m == nil:
		return notAMember
	case !sn.present(m):
		return MemberInactive
	case sn.standing(m, sn.probe) == MemberGone:
		return MemberGone
	}
	return ""
}

// standFor readies the member a release or pass reserves the stick for: a
// person whose recorded process (an earlier guardian) has exited stands for
// itself again, so the room waits for the person to claim instead of
// reporting its recipient gone.
func (sn *snapshot) standFor(tx Tx, m *Member) error {
	if !person(m) || m.Process.IsZero() || sn.probe(m.Process) != procid.Gone {
		return nil
	}
	m.Process = Process{}
	return sn.saveMember(tx, m)
}
