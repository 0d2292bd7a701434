package stick

import (
	"context"
	"time"
)

// TakeoverResult is the new holder's lease after a takeover. It carries no
// handoff (the failed holder never wrote one); RecentHandoff is the newest
// release or pass in the log, the starting point for reconstructing context
// with RoomEvents.
type TakeoverResult struct {
	RoomID          string         `json:"room_id"`
	TurnID          int64          `json:"turn_id"`
	LeaseID         string         `json:"lease_id"`
	LeaseExpiresAt  time.Time      `json:"lease_expires_at"`
	NextHeartbeatAt time.Time      `json:"next_heartbeat_at"`
	Reason          TakeoverReason `json:"takeover_reason"`
	// Revoked is the holder or reserved recipient whose turn was taken.
	Revoked       string `json:"revoked_agent_id,omitempty"`
	EventSeq      int64  `json:"event_seq"`
	RecentHandoff *Event `json:"recent_handoff,omitempty"`
}

// Lease returns the fencing triple of the new turn.
func (t TakeoverResult) Lease() Lease {
	return Lease{RoomID: t.RoomID, LeaseID: t.LeaseID, TurnID: t.TurnID}
}

// Takeover grants the stick to the caller when the holder or the reserved
// recipient failed: its lease or claim timed out, or its exact process is
// proven gone. The caller's presence is refreshed before eligibility is
// checked. See canTakeOver for who may take over; a timeout never revokes by
// itself, only a committed takeover does.
//
// Errors, in order: invalid_argument (room_id, reason), room_not_found,
// room_closed, unknown_member, turn_mismatch, takeover_not_available,
// takeover_ineligible.
func (s *Service) Takeover(ctx context.Context, c Caller, roomID string, expectedTurn int64, reason string) (TakeoverResult, error) {
	if err := s.act(ActionTakeover, c); err != nil {
		return TakeoverResult{}, err
	}
	if err := checkFreeText("reason", reason, MaxReasonLen, true); err != nil {
		return TakeoverResult{}, err.(*Error).WithHint("say why you take over, for example \"owner lease expired\"")
	}
	if expectedTurn < 0 {
		return TakeoverResult{}, invalidArg("expected_turn_id", "expected_turn_id must not be negative, got %d", expectedTurn).
			WithHint("use the turn_id of the takeover_available result or of get_room_state")
	}
	var out TakeoverResult
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		r := &sn.room
		if expectedTurn != r.TurnID {
			return sn.describe(Errorf(CodeTurnMismatch, "expected_turn_id %d is not the current turn %d", expectedTurn, r.TurnID)).
				WithHint("read the room with get_room_state; someone may already have taken over")
		}
		if err := sn.canTakeOver(c.AgentID); err != nil {
			return err
		}
		why := sn.takeoverReason()
		revoked := r.Owner
		if r.State == StateReserved {
			revoked = r.ReservedFor
		}
		ev, err := s.grant(tx, sn, c, Event{Type: EventTakeover, Reason: reason, To: revoked, Data: encodeData(TakeoverData{TakeoverReason: why})})
		if err != nil {
			return err
		}
		out = TakeoverResult{
			RoomID: r.ID, TurnID: r.TurnID, LeaseID: r.LeaseID, LeaseExpiresAt: r.LeaseExpiresAt,
			NextHeartbeatAt: sn.now.Add(sn.policy.HeartbeatInterval), Reason: why, Revoked: revoked, EventSeq: ev.Seq,
		}
		if h, ok, err := tx.LastEvent(r.ID, EventRelease, EventPass); err != nil {
			return err
		} else if ok {
			out.RecentHandoff = &h
		}
		return nil
	})
	return out, err
}
