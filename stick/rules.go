package stick

import (
	"slices"
	"time"

	"github.com/stickhq/stick/procid"
)

// TakeoverReason says why takeover is open.
type TakeoverReason string

// The takeover reasons of the protocol.
const (
	ReasonClaimTimeout  TakeoverReason = "claim_timeout"
	ReasonOwnerTimeout  TakeoverReason = "owner_timeout"
	ReasonOwnerGone     TakeoverReason = "owner_gone"
	ReasonRecipientGone TakeoverReason = "recipient_gone"
)

// GrantReason says how a holder got the stick from WaitForTurn.
type GrantReason string

// The grant reasons of the protocol.
const (
	GrantDirectPass GrantReason = "direct_pass"
	GrantSequence   GrantReason = "sequence"
	GrantOpenClaim  GrantReason = "open_claim"
	// GrantTakeover is reported when a holder that took over asks WaitForTurn again.
	GrantTakeover GrantReason = "takeover"
)

// state derives the protocol state. Recovery states (owner_gone,
// recipient_gone, stale_owner) come before dormant, the most actionable first.
func (sn *snapshot) state() RoomState {
	r := sn.room
	switch r.State {
	case StateClosed:
		return StateClosed
	case StateOwned:
		if sn.ownerStatus == procid.Gone {
			return StateOwnerGone
		}
		if sn.leaseExpired() {
			return StateStaleOwner
		}
		return StateOwned
	case StateReserved:
		if sn.recipientStatus == procid.Gone {
			return StateRecipientGone
		}
	}
	if !sn.anyActive() {
		return StateDormant
	}
	return r.State
}

// takeoverReason says why takeover is open, or "" when it is not.
func (sn *snapshot) takeoverReason() TakeoverReason {
	switch sn.room.State {
	case StateOwned:
		if sn.ownerStatus == procid.Gone {
			return ReasonOwnerGone
		}
		if sn.leaseExpired() {
			return ReasonOwnerTimeout
		}
	case StateReserved:
		if sn.recipientStatus == procid.Gone {
			return ReasonRecipientGone
		}
		if sn.claimExpired() {
			return ReasonClaimTimeout
		}
	}
	return ""
}

// canTakeOver returns nil when agent may take over now, and otherwise a
// takeover_not_available or takeover_ineligible error with the room's facts.
//
// Timeouts open takeover to members other than the holder or recipient
// themselves. A proven-dead holder or recipient may not come back under the
// same id while another active member can recover the room, but may when it
// is alone, so a room never deadlocks. On a claim timeout the prior owner (who
// released or passed the pending handoff) may not grab the stick back while
// another active member could take it.
func (sn *snapshot) canTakeOver(agent string) error {
	r := sn.room
	reason := sn.takeoverReason()
	if reason == "" {
		e := Errorf(CodeTakeoverNotAvailable, "takeover is not available: the room is %s", sn.state())
		switch r.State {
		case StateOwned:
			e.WithHint("%s holds a live lease until %s; wait with wait_for_turn", r.Owner, r.LeaseExpiresAt.UTC().Format(time.RFC3339))
		case StateReserved:
			e.WithHint("%s may claim until %s; wait with wait_for_turn", r.ReservedFor, r.ClaimExpiresAt.UTC().Format(time.RFC3339))
		default:
			e.WithHint("the stick is free; claim it with wait_for_turn")
		}
		return sn.describe(e)
	}
	inel := func(format string, args ...any) *Error {
		return sn.describe(Errorf(CodeTakeoverIneligible, format, args...).With("reason", string(reason)))
	}
	switch reason {
	case ReasonOwnerTimeout:
		if agent == r.Owner {
			return inel("you hold the stick; its lease expired but is still yours").
				WithHint("heartbeat with your lease to renew it")
		}
	case ReasonClaimTimeout:
		if agent == r.ReservedFor {
			return inel("the stick is reserved for you").WithHint("claim it with wait_for_turn")
		}
		if prior := sn.priorOwner(); agent == prior && sn.anyActive(agent, r.ReservedFor) {
			return inel("you released or passed this stick last; another active member must take it over").
				WithHint("wait with wait_for_turn; you may take over only when no other member is active")
		}
	case ReasonOwnerGone:
		if agent == r.Owner && sn.anyActive(agent) {
			return inel("your earlier process holding this stick has exited; another active member must take it over").
				WithHint("wait with wait_for_turn")
		}
	case ReasonRecipientGone:
		if agent == r.ReservedFor && sn.anyActive(agent) {
			return inel("your earlier process the stick was reserved for has exited; another active member must take it over").
				WithHint("wait with wait_for_turn")
		}
	}
	return nil
}

// describe adds the room's current facts to an error.
func (sn *snapshot) describe(e *Error) *Error {
	r := sn.room
	e.With("room_id", r.ID).With("room_state", string(sn.state())).With("current_turn_id", r.TurnID)
	if r.Owner != "" {
		e.With("current_owner", r.Owner)
	}
	if r.ReservedFor != "" {
		e.With("reserved_for", r.ReservedFor)
	}
	return e
}

// checkLease enforces fencing for owner mutations, in the protocol's order:
// room_closed, then turn_mismatch, then stale_lease. A holder whose exact
// process is proven gone may not renew, release or pass.
func (sn *snapshot) checkLease(agent string, l Lease) error {
	r := sn.room
	if r.State == StateClosed {
		return sn.closedErr()
	}
	if l.TurnID != r.TurnID {
		return sn.describe(Errorf(CodeTurnMismatch, "expected_turn_id %d is not the current turn %d", l.TurnID, r.TurnID)).
			WithHint("stop working as holder and read the room with get_room_state")
	}
	if r.State != StateOwned || r.Owner != agent || r.LeaseID != l.LeaseID {
		return sn.describe(Errorf(CodeStaleLease, "the supplied lease is no longer current for this room")).
			WithHint("stop working as holder and read the room with get_room_state")
	}
	if sn.ownerStatus == procid.Gone {
		return sn.describe(Errorf(CodeStaleLease, "the process that claimed this lease has exited, so the lease cannot be used any more")).
			WithHint("take over with takeover_stick if no other member does, or wait with wait_for_turn")
	}
	return nil
}

func (sn *snapshot) closedErr() *Error {
	return sn.describe(Errorf(CodeRoomClosed, "room %s is closed", sn.room.ID)).
		WithHint("the room is read-only; join_path again to start a new room at this path")
}

// waitKind is what WaitForTurn should do for a caller right now.
type waitKind int

const (
	waitNotYet waitKind = iota
	waitClaim
	waitRedeliver
	waitTakeover
	waitClosed
)

// waitDecision decides a wait attempt for caller c, an active member. The
// holder gets its lease back only from the process that claimed it (or when
// either process is unknown), so two live processes sharing an agent id
// never both believe they hold the stick.
func (sn *snapshot) waitDecision(c Caller) (waitKind, GrantReason) {
	r, agent := sn.room, c.AgentID
	switch r.State {
	case StateClosed:
		return waitClosed, ""
	case StateIdle:
		return waitClaim, GrantOpenClaim
	case StateOwned:
		if agent == r.Owner && sn.ownerStatus != procid.Gone {
			if sn.holds(c) {
				return waitRedeliver, ""
			}
			return waitNotYet, ""
		}
	case StateReserved:
		if agent == r.ReservedFor && sn.recipientStatus != procid.Gone {
			if sn.pending != nil && sn.pending.Type == EventPass && sn.pending.To == agent {
				return waitClaim, GrantDirectPass
			}
			return waitClaim, GrantSequence
		}
	}
	if sn.canTakeOver(agent) == nil {
		return waitTakeover, ""
	}
	return waitNotYet, ""
}

// nextHeartbeat is when the holder should heartbeat next: one interval from
// now, but early enough to renew before the lease runs out (now, if it has).
func (sn *snapshot) nextHeartbeat() time.Time {
	next := sn.now.Add(sn.policy.HeartbeatInterval)
	if latest := sn.room.LeaseExpiresAt.Add(-sn.policy.HeartbeatInterval); latest.Before(next) {
		next = latest
	}
	if next.Before(sn.now) {
		next = sn.now
	}
	return next
}

// next returns the first member after agent in sequence order (wrapping)
// that takes turns (active or away, judged afresh, and not on standby) and is not in skip, or
// nil. Only candidates up to the first acceptable one are probed.
func (sn *snapshot) next(agent string, skip ...string) *Member {
	start := -1
	for i := range sn.members {
		if sn.members[i].AgentID == agent {
			start = i
		}
	}
	n := len(sn.members)
	for k := 1; k <= n; k++ {
		m := &sn.members[(start+k+n)%n]
		if m.AgentID == agent || m.Standby || slices.Contains(skip, m.AgentID) || !sn.present(m) {
			continue
		}
		if takesTurns(sn.standing(m, sn.probe)) {
			return m
		}
	}
	return nil
}

// wakeAt is the next instant at which time alone can change a wait decision:
// a lease or claim expiry, or a member's presence lapsing.
func (sn *snapshot) wakeAt(agent string) time.Time {
	var t time.Time
	earliest := func(c time.Time) {
		if c.After(sn.now) && (t.IsZero() || c.Before(t)) {
			t = c
		}
	}
	switch sn.room.State {
	case StateOwned:
		earliest(sn.room.LeaseExpiresAt)
	case StateReserved:
		earliest(sn.room.ClaimExpiresAt)
	}
	for i := range sn.members {
		if m := &sn.members[i]; m.AgentID != agent {
			earliest(m.LastSeenAt.Add(sn.policy.PresenceTTL + time.Millisecond))
		}
	}
	return t
}

// watched is the process whose death would open takeover: the live holder or
// the live reserved recipient; with a GraceLiveness also one not yet judged
// (a member behind a proxy out of touch within its grace, gone when it
// runs out).
func (sn *snapshot) watched() Process {
	watch := func(st procid.Status) bool { return st == procid.Alive || sn.graceful && st == procid.Unknown }
	switch {
	case sn.room.State == StateOwned && watch(sn.ownerStatus):
		if m := sn.member(sn.room.Owner); m != nil {
			return m.Process
		}
	case sn.room.State == StateReserved && watch(sn.recipientStatus):
		if m := sn.member(sn.room.ReservedFor); m != nil {
			return m.Process
		}
	}
	return Process{}
}
