package stick

import (
	"context"
	"strings"
	"time"

	"github.com/stickhq/stick/procid"
)

// ReasonRemoved is the Reason of the leave event of a member that another
// removed (see RemoveMember); its Data is a RemovedData.
const ReasonRemoved = "removed"

// MaxRemoveReasonLen bounds the reason given for removing a member.
const MaxRemoveReasonLen = 500

// SetHandle gives the caller a short handle in the room, shown beside its
// agent id and usable to address it; "" drops it. A handle matches
// ^[a-z0-9-]+$, is at most MaxMemberHandleLen long, and no other member
// of the room has it. Setting the handle one has changes nothing.
//
// Errors: invalid_argument (handle; taken by another member, naming it),
// room_not_found, room_closed, unknown_member.
func (s *Service) SetHandle(ctx context.Context, c Caller, roomID, handle string) (Identity, error) {
	if err := s.act(ActionSetHandle, c); err != nil {
		return Identity{}, err
	}
	handle = strings.TrimPrefix(strings.TrimSpace(handle), "@")
	if handle != "" && !isShortName(handle, MaxMemberHandleLen) {
		return Identity{}, invalidArg("handle", "handle %s is not a handle: use lower-case letters, digits and '-' (at most %d), for example reviewer",
			Quote(handle), MaxMemberHandleLen)
	}
	var out Identity
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		m := sn.member(c.AgentID)
		for _, o := range sn.members {
			if handle != "" && o.AgentID != m.AgentID && (o.Handle == handle || o.AgentID == handle) {
				return invalidArg("handle", "handle %s is taken in room %s by %s", Quote(handle), sn.room.ID, o.AgentID).
					WithHint("choose another handle")
			}
		}
		m.Handle = handle
		out = identityOf(sn.room.ID, m)
		return sn.saveMember(tx, m)
	})
	return out, err
}

// WhoAmI returns the caller's identity in the room: its handle, agent id
// and display name.
//
// Errors: invalid_argument, room_not_found, unknown_member.
func (s *Service) WhoAmI(ctx context.Context, c Caller, roomID string) (Identity, error) {
	if err := s.act(ActionWhoAmI, c); err != nil {
		return Identity{}, err
	}
	var out Identity
	err := s.memberView(ctx, c, roomID, func(m *Member) { out = identityOf(roomID, m) })
	return out, err
}

// memberView reads the caller's member record in the room in a brief
// read and gives it to fn.
//
// Errors: invalid_argument, room_not_found, unknown_member.
func (s *Service) memberView(ctx context.Context, c Caller, roomID string, fn func(*Member)) error {
	if err := c.validate(); err != nil {
		return err
	}
	if err := requireRoomID(roomID); err != nil {
		return err
	}
	return s.briefView(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		m, err := sn.memberOf(c.AgentID)
		if err == nil {
			fn(m)
		}
		return err
	})
}

func identityOf(roomID string, m *Member) Identity {
	return Identity{RoomID: roomID, AgentID: m.AgentID, Handle: m.Handle, DisplayName: m.DisplayName, Kind: m.Kind}
}

// SetStandby puts the caller on standby in the room, or takes it off
// (on false): a member on standby stays in the room without taking turns
// by itself. The stick never goes to it in sequence; it is woken (see
// RegisterWake) when a note is addressed to it, the stick is passed to
// it, or it is asked for the room's conclusion. Waiting for the stick
// (WaitForTurn) is asking for turns again, which takes it off standby
// once it is granted the stick. It returns the caller's status after.
//
// Errors: invalid_argument, room_not_found, room_closed, unknown_member.
func (s *Service) SetStandby(ctx context.Context, c Caller, roomID string, on bool) (MemberStatus, error) {
	if err := s.act(ActionSetStandby, c); err != nil {
		return MemberStatus{}, err
	}
	var out MemberStatus
	err := s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		m := sn.member(c.AgentID)
		m.Standby = on
		if err := sn.saveMember(tx, m); err != nil {
			return err
		}
		tx.Ring(roomID, "")
		out = sn.statusOf(m)
		return nil
	})
	return out, err
}

// RemoveMember removes agentID from the room's sequence, recorded in the
// log as its leave with ReasonRemoved and who removed it. A member that
// holds the stick loses it (its lease is fenced: its later calls fail
// with stale_lease or turn_mismatch) and the room goes idle; a
// reservation for it moves on as when a member leaves. Who may: a
// Service acting for an operator removes any member, and so does one
// acting for no principal when the caller is a person (the CLI); anyone
// else (an agent's session) removes only itself or a member whose process
// is proven gone. The caller need
// not be a member when it may remove any member.
//
// Errors: invalid_argument (agent_id, reason), room_not_found,
// room_closed, unknown_member (agentID is no member), forbidden (the
// target's process is not proven gone).
func (s *Service) RemoveMember(ctx context.Context, c Caller, roomID, agentID, reason string) (RoomStatus, error) {
	if err := s.act(ActionRemoveMember, c); err != nil {
		return RoomStatus{}, err
	}
	if err := validateAgentID("agent_id", agentID); err != nil {
		return RoomStatus{}, err
	}
	if problem := textProblem(reason, MaxRemoveReasonLen, false); problem != "" {
		return RoomStatus{}, invalidArg("reason", "reason %s", problem)
	}
	if err := c.validate(); err != nil {
		return RoomStatus{}, err
	}
	if err := requireRoomID(roomID); err != nil {
		return RoomStatus{}, err
	}
	// A hub's operator token may remove anyone; without a principal (on
	// this host) a person may, and an agent's session may not.
	operator := s.operates() && (s.principal != nil || c.kind() != KindHarness)
	var out RoomStatus
	err := s.store.Update(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		if sn.room.State == StateClosed {
			return sn.closedErr()
		}
		if m := sn.member(c.AgentID); m != nil {
			if err := sn.vouch(c); err != nil {
				return err
			}
			if err := sn.touch(tx, m); err != nil {
				return err
			}
		} else if !operator {
			_, err := sn.memberOf(c.AgentID)
			return err
		}
		target := sn.member(agentID)
		if target == nil {
			return sn.describe(Errorf(CodeUnknownMember, "%s is not a member of room %s; its members are %s", agentID, sn.room.ID, sn.memberNames())).
				With("agent_id", agentID)
		}
		gone := sn.probe(target.Process) == procid.Gone
		if !gone && !operator && agentID != c.AgentID {
			return sn.describe(Errorf(CodeForbidden, "%s's process is not proven gone, so only an operator may remove it", agentID)).
				With("agent_id", agentID).
				WithHint("ask a person to run 'stick kick %s', or address a note to it; a member whose process exited can be removed by anyone", agentID)
		}
		data := RemovedData{By: c.AgentID, Reason: reason, Gone: gone}
		r := &sn.room
		if r.State == StateOwned && r.Owner == agentID {
			data.HeldTurn = r.TurnID
			r.State, r.Owner, r.LeaseID, r.LeaseExpiresAt = StateIdle, "", "", time.Time{}
			r.UpdatedAt = sn.now
			if err := saveRoom(tx, *r); err != nil {
				return err
			}
		}
		if err := sn.leave(tx, agentID, &data); err != nil {
			return err
		}
		out, err = s.status(tx, sn)
		return err
	})
	return out, err
}
