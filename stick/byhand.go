package stick

import "context"

// Handing the stick on by hand: a person at a hub's page, whose every
// form is a request of its own, keeps no lease between them.

// HandOn ends a turn in one call, for a caller that keeps no lease between
// its calls: a person at a hub's page (a one_shot member). turn is the
// room's turn the caller saw, which fences the call as a lease would: a
// room that moved on since is turn_mismatch, and nothing changes.
//
// When the caller holds the stick, it hands it on as Release (to "") or
// Pass (to a member) would with its lease. When the stick is free, or
// reserved for the caller, the caller claims it and hands it on in the
// same transaction: a claim event (which receives the pending handoff, as
// any claim does) and then the release or pass. So a person can hand work
// to an agent, with a handoff, without first waiting for the stick. When
// another member holds it or it is reserved for another, nothing changes:
// stick_held names who has it (and takeover may be open to the caller:
// see Takeover). Every failure, a bad handoff or an unfit target
// included, changes nothing.
//
// Errors, in order: invalid_argument (to, turn), room_not_found,
// room_closed, unknown_member, turn_mismatch, stick_held, invalid_handoff,
// unknown_member (the target).
func (s *Service) HandOn(ctx context.Context, c Caller, roomID string, turn int64, to string, h Handoff) (ReleaseResult, error) {
	if err := s.act(ActionHandOn, c); err != nil {
		return ReleaseResult{}, err
	}
	if to != "" {
		if err := validateAgentID("to_agent_id", to); err != nil {
			return ReleaseResult{}, err
		}
		if to == c.AgentID {
			return ReleaseResult{}, invalidArg("to_agent_id", "cannot pass the stick to yourself").
				WithHint("hand it to another member, or to the next in order")
		}
	}
	if turn < 0 {
		return ReleaseResult{}, invalidArg("expected_turn_id", "expected_turn_id must not be negative, got %d", turn).
			WithHint("use the turn_id of get_room_state")
	}
	var out ReleaseResult
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		r := &sn.room
		if turn != r.TurnID {
			return sn.describe(Errorf(CodeTurnMismatch, "the room is at turn %d, not at turn %d you saw", r.TurnID, turn)).
				WithHint("read the room again: the stick has moved since")
		}
		if !sn.holds(c) {
			kind, reason := sn.waitDecision(c)
			if kind != waitClaim {
				return sn.notYours(c.AgentID)
			}
			if _, err := s.grant(tx, sn, c, Event{Type: EventClaim, Reason: string(reason)}); err != nil {
				return err
			}
		}
		var err error
		out, err = s.handOnIn(tx, sn, c, h, to)
		return err
	})
	return out, err
}

// notYours is the stick_held refusal of a caller who neither holds the
// stick nor may claim it now, naming who has it.
func (sn *snapshot) notYours(agent string) *Error {
	r := sn.room
	var e *Error
	switch {
	case r.State == StateOwned && r.Owner == agent:
		e = Errorf(CodeStickHeld, "the stick is yours, but the process that claimed it is gone")
	case r.State == StateOwned:
		e = Errorf(CodeStickHeld, "%s holds the stick", r.Owner)
	default:
		e = Errorf(CodeStickHeld, "the stick is reserved for %s", r.ReservedFor)
	}
	if why := sn.takeoverReason(); why != "" && sn.canTakeOver(agent) == nil {
		return sn.describe(e).With("takeover_reason", string(why)).
			WithHint("its turn failed (%s): take the stick over with a reason, then hand it on", why)
	}
	return sn.describe(e).WithHint("wait until it is handed on, or take it over once its turn fails (a lease or claim that runs out, a process that exits)")
}
