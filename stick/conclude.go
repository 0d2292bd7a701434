package stick

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// A team's session ends with a conclusion, and a room may name the member
// responsible for it: its concluder (Room.Concluder). The member that
// creates a room by name may make itself the concluder (JoinRequest.
// Conclude); later an operator, or the concluder itself, names another
// (SetConcluder). Then, for a principal that is no operator, Close is a
// request: a close asked by another member hands the concluder the stick
// with a handoff asking for the conclusion, and the room closes only when
// the concluder closes it, with a conclusion. An operator, and a Service
// acting for no principal, close outright, as before.

// operates reports whether s manages rooms outright: it acts for no
// principal, or for one with the role operator.
func (s *Service) operates() bool {
	return s.principal == nil || s.principal.Role.AtLeast(AccessOperator)
}

// SetConcluder names agentID, a member of the room, responsible for the
// room's conclusion, or no member with agentID "". An operator may (and a
// Service acting for no principal); so may the concluder itself, to hand
// the duty on or give it up. A change is logged as a concluder event;
// naming the member already named changes nothing. It returns the room's
// state after.
//
// Errors: invalid_argument (concluder), room_not_found, room_closed,
// unknown_member (the caller, or agentID, is no member), forbidden (an
// agent that is not the concluder).
func (s *Service) SetConcluder(ctx context.Context, c Caller, roomID, agentID string) (RoomStatus, error) {
	if err := s.act(ActionSetConcluder, c); err != nil {
		return RoomStatus{}, err
	}
	if agentID != "" {
		if err := validateAgentID("concluder", agentID); err != nil {
			return RoomStatus{}, err
		}
	}
	var out RoomStatus
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		if err := s.mayNameConcluder(sn, c.AgentID); err != nil {
			return err
		}
		if agentID != "" && sn.member(agentID) == nil {
			return sn.describe(Errorf(CodeUnknownMember, "%s is not a member of room %s; only a member can be responsible for its conclusion", agentID, sn.room.ID)).
				With("agent_id", agentID).WithHint("name a member that has joined (the room's state lists them), or ask it to join first")
		}
		if agentID != sn.room.Concluder {
			if err := sn.nameConcluder(tx, c.AgentID, agentID); err != nil {
				return err
			}
		}
		var err error
		out, err = s.status(tx, sn)
		return err
	})
	return out, err
}

// mayNameConcluder returns forbidden unless s operates or agent is the
// room's concluder.
func (s *Service) mayNameConcluder(sn *snapshot, agent string) error {
	r := sn.room
	if s.operates() || r.Concluder != "" && r.Concluder == agent {
		return nil
	}
	p := s.principal
	if r.Concluder == "" {
		return Errorf(CodeForbidden, "room %s names no member responsible for its conclusion, and naming one needs the role operator; the token %s has the role %s",
			r.ID, Quote(p.Name), p.Role).With("needed_role", string(AccessOperator)).With("role", string(p.Role)).
			WithHint("ask an operator of the hub to name one; a member that creates a session by name may name itself (conclude)")
	}
	return Errorf(CodeForbidden, "%s is responsible for the conclusion of room %s: only it, or a token with the role operator, may name another; the token %s has the role %s",
		r.Concluder, r.ID, Quote(p.Name), p.Role).With("concluder", r.Concluder).With("needed_role", string(AccessOperator)).With("role", string(p.Role)).
		WithHint("ask %s to name another member, or an operator of the hub", r.Concluder)
}

// nameConcluder makes agentID the room's concluder ("" for none) and logs
// it as by's doing.
func (sn *snapshot) nameConcluder(tx Tx, by, agentID string) error {
	r := &sn.room
	r.Concluder, r.UpdatedAt = agentID, sn.now
	if err := saveRoom(tx, *r); err != nil {
		return err
	}
	_, err := appendEvent(tx, Event{RoomID: r.ID, TurnID: r.TurnID, Type: EventConcluder, From: by, To: agentID, CreatedAt: sn.now})
	return err
}

// agentClose applies the rules of a close by a principal that is no
// operator (see Close): in a room that names no concluder it is
// forbidden; by another member it becomes a request, whose result it
// returns; by the concluder it goes ahead (nil, nil) only with a
// conclusion.
func (s *Service) agentClose(tx Tx, sn *snapshot, c Caller, reason, conclusion string) (*CloseResult, error) {
	r := sn.room
	p := s.principal
	switch {
	case r.Concluder == "":
		return nil, Errorf(CodeForbidden, "room %s names no member responsible for its conclusion, and closing it needs the role operator; the token %s has the role %s",
			r.ID, Quote(p.Name), p.Role).With("needed_role", string(AccessOperator)).With("role", string(p.Role)).
			WithHint("ask an operator of the hub to close the room, or to name the member responsible for its conclusion")
	case r.Concluder != c.AgentID:
		if r.State == StateClosed {
			return nil, sn.closedErr()
		}
		res, err := s.askToClose(tx, sn, c, reason, conclusion)
		return &res, err
	case strings.TrimSpace(conclusion) == "":
		return nil, invalidArg("conclusion", "you are responsible for the conclusion of room %s, and it closes only with one: conclusion is empty", r.ID).
			WithHint("write the conclusion (what was done, decided and left open) and close the room again with it")
	}
	return nil, nil
}

// askToClose ends the caller's part in the room as a close asked of the
// concluder: a pass event from the caller to the concluder, with a
// handoff asking for the conclusion (and the caller's draft of it), and
// the stick reserved for the concluder. The caller must hold the stick,
// or the stick must be free or reserved for it: a member asks in its own
// turn. The concluder must be a member that takes turns (active or away).
func (s *Service) askToClose(tx Tx, sn *snapshot, c Caller, reason, conclusion string) (CloseResult, error) {
	r := &sn.room
	switch {
	case r.State == StateOwned && r.Owner != c.AgentID:
		return CloseResult{}, sn.describe(Errorf(CodeStickHeld, "%s holds the stick; a member asks to close the room in its own turn", r.Owner)).
			WithHint("wait for your turn, then ask again; or post a note asking %s to close the room", r.Concluder)
	case r.State == StateReserved && r.ReservedFor != c.AgentID:
		return CloseResult{}, sn.describe(Errorf(CodeStickHeld, "the stick is reserved for %s; a member asks to close the room in its own turn", r.ReservedFor)).
			WithHint("wait for your turn, then ask again; or post a note asking %s to close the room", r.Concluder)
	}
	to, err := sn.concluderTakes()
	if err != nil {
		return CloseResult{}, err
	}
	h := conclusionHandoff(c.AgentID, reason, conclusion)
	if err := h.Validate(); err != nil {
		return CloseResult{}, invalidArg("conclusion", "the draft conclusion is too long to hand to %s: a handoff's status holds at most %d bytes", to.AgentID, MaxHandoffText).
			WithHint("shorten the draft, or write it into the room's document and leave conclusion out")
	}
	if err := sn.standFor(tx, to); err != nil {
		return CloseResult{}, err
	}
	ev, err := appendEvent(tx, Event{RoomID: r.ID, TurnID: r.TurnID, Type: EventPass, From: c.AgentID, To: to.AgentID, Handoff: &h,
		Reason: ReasonConclusionRequested, CreatedAt: sn.now})
	if err != nil {
		return CloseResult{}, err
	}
	r.Owner, r.LeaseID, r.LeaseExpiresAt, r.GrantSeq = "", "", time.Time{}, 0
	r.State, r.ReservedFor, r.SequenceIndex, r.PendingHandoffSeq = StateReserved, to.AgentID, to.Ordinal, ev.Seq
	r.ClaimExpiresAt, r.UpdatedAt = sn.now.Add(sn.policy.ClaimTTL), sn.now
	tx.Ring(r.ID, to.AgentID)
	return CloseResult{RoomID: r.ID, EventSeq: ev.Seq, ConclusionRequested: true, Concluder: to.AgentID}, saveRoom(tx, *r)
}

// concluderTakes returns the room's concluder, or unknown_member when it
// cannot take the stick: it is no member any more, is inactive, or its
// process is gone.
func (sn *snapshot) concluderTakes() (*Member, error) {
	id := sn.room.Concluder
	m := sn.member(id)
	fail := func(why, format string, args ...any) error {
		return sn.describe(Errorf(CodeUnknownMember, format, args...)).With("concluder", id).With("why", why).
			WithHint("ask an operator of the hub to close the room, or to name another member responsible for its conclusion")
	}
	switch why := sn.unfit(m); why {
	case "":
		return m, nil
	case notAMember:
		return nil, fail(why, "%s, responsible for the room's conclusion, is no member of the room any more", id)
	case MemberInactive:
		return nil, fail(why, "%s, responsible for the room's conclusion, is inactive (last seen %s ago)", id, ago(sn.now, m.LastSeenAt))
	default:
		return nil, fail(why, "%s, responsible for the room's conclusion, is gone: its process has exited", id)
	}
}

// conclusionHandoff is the handoff of a close that from asked: it asks
// the concluder for the conclusion, with from's reason and draft.
func conclusionHandoff(from, reason, draft string) Handoff {
	status := from + " asks to close the room"
	if r := strings.TrimSpace(reason); r != "" {
		status += ": " + r
	}
	if d := strings.TrimSpace(draft); d != "" {
		status += fmt.Sprintf("\n\nIts draft of the conclusion:\n\n%s", d)
	}
	return Handoff{Status: status,
		NextAction: "You are responsible for this room's conclusion: read the room's document and log, write the conclusion, " +
			"then close the room with it (close_room with conclusion). The room stays open until you do."}
}
