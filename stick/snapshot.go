package stick

import (
	"slices"
	"time"

	"github.com/stickhq/stick/procid"
)

// snapshot is everything the rules need to decide about one room at one
// instant: the stored room, its members, the effective policy, the time, and
// the liveness of the holder and the reserved recipient (probed afresh).
// Other members' processes are judged by cached verdicts (see verdicts), so
// reads stay cheap however many members a room has.
type snapshot struct {
	room    Room
	members []Member
	// stored is each member as the store holds it, so saves that change
	// nothing a reader would notice can be skipped (see saveMember).
	stored map[string]Member
	policy Policy
	now    time.Time
	// pending is the release or pass event a claimant would receive, if any.
	pending *Event
	// ownerStatus and recipientStatus are the liveness of room.Owner and room.ReservedFor.
	ownerStatus     procid.Status
	recipientStatus procid.Status
	// probe checks the liveness of one member's process afresh; used
	// sparingly (the member a release or pass hands the stick to).
	probe func(Process) procid.Status
	// verdict is probe through the service's verdict cache; it judges the
	// members a reader sees.
	verdict func(Process) procid.Status
	// graceful is set when the service's liveness is a GraceLiveness, whose
	// Unknown may turn Gone by itself (see watched).
	graceful bool
}

// load reads a room and its members inside tx and probes the holder's and the
// reserved recipient's processes. A room s does not reach (see As) is
// room_not_found, as one that does not exist.
func (s *Service) load(tx Tx, roomID string) (*snapshot, error) {
	r, ok, err := tx.Room(roomID)
	if err != nil {
		return nil, err
	}
	if !ok || !s.reaches(r) {
		return nil, roomNotFound(roomID)
	}
	ms, err := tx.Members(roomID)
	if err != nil {
		return nil, err
	}
	sn := s.snapshotOf(r, ms, s.clock.Now())
	if r.PendingHandoffSeq != 0 {
		e, ok, err := tx.Event(roomID, r.PendingHandoffSeq)
		if err != nil {
			return nil, err
		}
		if ok {
			sn.pending = &e
		}
	}
	if r.State == StateOwned {
		sn.ownerStatus = sn.probeAgent(r.Owner)
	}
	if r.State == StateReserved {
		sn.recipientStatus = sn.probeAgent(r.ReservedFor)
	}
	return sn, nil
}

// snapshotOf returns the snapshot of a room read at now, without probing anyone.
func (s *Service) snapshotOf(r Room, ms []Member, now time.Time) *snapshot {
	sn := &snapshot{room: r, members: ms, policy: r.Policy.Effective(s.defaults), now: now}
	_, sn.graceful = s.liveness.(GraceLiveness)
	grace := sn.policy.ProxyGrace
	sn.probe = func(p Process) procid.Status { return s.check(p, grace) }
	sn.verdict = func(p Process) procid.Status { return s.cachedCheck(p, grace) }
	sn.stored = make(map[string]Member, len(ms))
	for _, m := range ms {
		sn.stored[m.AgentID] = m
	}
	return sn
}

// check probes p afresh, in a room whose proxy grace is grace (see
// GraceLiveness), and remembers the verdict for cachedCheck.
func (s *Service) check(p Process, grace time.Duration) procid.Status {
	if p.IsZero() {
		return procid.Unknown
	}
	var st procid.Status
	final := true
	if gl, ok := s.liveness.(GraceLiveness); ok {
		st, final = gl.CheckWithin(p, grace), false
	} else {
		st = s.liveness.Check(p)
	}
	s.verdicts.put(p, grace, st, s.clock.Now(), s.livenessPoll, final)
	return st
}

// cachedCheck is check, answered from a verdict at most one liveness poll
// old when there is one.
func (s *Service) cachedCheck(p Process, grace time.Duration) procid.Status {
	if p.IsZero() {
		return procid.Unknown
	}
	if st, ok := s.verdicts.get(p, grace, s.clock.Now()); ok {
		return st
	}
	return s.check(p, grace)
}

func (sn *snapshot) probeAgent(id string) procid.Status {
	if m := sn.member(id); m != nil {
		return sn.probe(m.Process)
	}
	return procid.Unknown
}

// member returns the member with the given id, or nil.
func (sn *snapshot) member(id string) *Member {
	for i := range sn.members {
		if sn.members[i].AgentID == id {
			return &sn.members[i]
		}
	}
	return nil
}

// present reports whether m called within the presence TTL.
func (sn *snapshot) present(m *Member) bool {
	return sn.now.Sub(m.LastSeenAt) <= sn.policy.PresenceTTL
}

// gone reports whether the agent is the holder or the reserved recipient and
// its exact process is proven to have exited.
func (sn *snapshot) gone(id string) bool {
	switch {
	case sn.room.State == StateOwned && id == sn.room.Owner:
		return sn.ownerStatus == procid.Gone
	case sn.room.State == StateReserved && id == sn.room.ReservedFor:
		return sn.recipientStatus == procid.Gone
	}
	return false
}

// The statuses of a member (MemberStatus.Status).
const (
	// MemberActive is a member that called within the presence TTL and
	// whose process runs, or cannot be judged (no facts, another host).
	MemberActive string = "active"
	// MemberAway is a person (a human guardian or one-shot member) that
	// called within the presence TTL but has no live process standing for
	// it: between commands, not waiting for the stick now. It still takes
	// its turn in the sequence and may be passed to; its prompt tells it.
	MemberAway string = "away"
	// MemberInactive is a member that has not called within the presence TTL.
	MemberInactive string = "inactive"
	// MemberGone is a member whose recorded process is proven to have
	// exited: a program's (harness, process), or the holder's or the
	// reserved recipient's.
	MemberGone string = "gone"
)

// person reports whether m stands for a person: its process facts (a
// guardian's, or none for one-shot commands) tell whether the person waits
// for the stick now, not whether the person is still around.
func person(m *Member) bool { return m.Kind == KindGuardian || m.Kind == KindOneShot }

// memberStatus is m's status, with other members' processes judged by cached verdicts.
func (sn *snapshot) memberStatus(m *Member) string { return sn.standing(m, sn.verdict) }

// standing is m's status, with its process (unless it is the holder or the
// reserved recipient, probed by load) judged by check. Members that are not
// present are never probed.
func (sn *snapshot) standing(m *Member, check func(Process) procid.Status) string {
	switch {
	case sn.gone(m.AgentID):
		return MemberGone
	case !sn.present(m):
		return MemberInactive
	case sn.room.State == StateOwned && m.AgentID == sn.room.Owner:
		return MemberActive
	}
	st := procid.Unknown
	switch {
	case sn.room.State == StateReserved && m.AgentID == sn.room.ReservedFor:
		st = sn.recipientStatus
	case !m.Process.IsZero():
		st = check(m.Process)
	}
	switch {
	case person(m) && (m.Process.IsZero() || st == procid.Gone):
		return MemberAway
	case st == procid.Gone:
		return MemberGone
	}
	return MemberActive
}

// takesTurns reports whether a member with the given status may receive
// the stick: by release in sequence, by pass, or by recovering the room.
func takesTurns(status string) bool { return status == MemberActive || status == MemberAway }

// active reports whether m can take a turn now: present and, unless it is
// a person, not proven gone.
func (sn *snapshot) active(m *Member) bool {
	return takesTurns(sn.memberStatus(m))
}

// anyActive reports whether some member other than those in except can take a turn.
func (sn *snapshot) anyActive(except ...string) bool {
outer:
	for i := range sn.members {
		m := &sn.members[i]
		for _, e := range except {
			if m.AgentID == e {
				continue outer
			}
		}
		if sn.active(m) {
			return true
		}
	}
	return false
}

func (sn *snapshot) leaseExpired() bool {
	return !sn.now.Before(sn.room.LeaseExpiresAt)
}

func (sn *snapshot) claimExpired() bool {
	return !sn.now.Before(sn.room.ClaimExpiresAt)
}

// priorOwner is the member who released or passed the pending handoff.
func (sn *snapshot) priorOwner() string {
	if sn.pending == nil {
		return ""
	}
	return sn.pending.From
}

// touch records that the member called now and saves it.
func (sn *snapshot) touch(tx Tx, m *Member) error {
	m.LastSeenAt = sn.now
	return sn.saveMember(tx, m)
}

// presenceGrain is how far a member's last-seen time may lag behind its
// latest call: a second, or a tenth of the presence TTL when that is
// shorter. Presence is judged against TTLs of minutes to hours, so finer
// updates would only add a page write to every call of a busy member.
func (sn *snapshot) presenceGrain() time.Duration {
	return min(time.Second, sn.policy.PresenceTTL/10)
}

// saveMember writes m unless the store already holds it, or holds it with
// a last-seen time less than presenceGrain older (which keeps the write
// off the hot path of back-to-back calls by one member).
func (sn *snapshot) saveMember(tx Tx, m *Member) error {
	if old, ok := sn.stored[m.AgentID]; ok && sameMember(old, *m) {
		if seen := m.LastSeenAt.Sub(old.LastSeenAt); seen >= 0 && seen < sn.presenceGrain() {
			m.LastSeenAt = old.LastSeenAt
			return nil
		}
	}
	if err := saveMember(tx, *m); err != nil {
		return err
	}
	sn.stored[m.AgentID] = *m
	return nil
}

// sameMember reports whether a and b differ at most in LastSeenAt, at the
// store's millisecond precision.
func sameMember(a, b Member) bool {
	ms := func(t time.Time) int64 {
		if t.IsZero() {
			return 0
		}
		return t.UnixMilli()
	}
	return a.RoomID == b.RoomID && a.AgentID == b.AgentID && a.Ordinal == b.Ordinal && a.SyncCursor == b.SyncCursor && a.ReclaimToken == b.ReclaimToken &&
		ms(a.JoinedAt) == ms(b.JoinedAt) && a.Kind == b.Kind && a.DisplayName == b.DisplayName &&
		a.Process.HostID == b.Process.HostID && a.Process.BootID == b.Process.BootID &&
		a.Process.PID == b.Process.PID && ms(a.Process.StartedAt) == ms(b.Process.StartedAt) &&
		a.Handle == b.Handle && a.Standby == b.Standby && slices.Equal(a.WakeTransports, b.WakeTransports) &&
		a.WokenSeq == b.WokenSeq && a.AddressedSeq == b.AddressedSeq && a.InterruptSeq == b.InterruptSeq &&
		a.WakeState == b.WakeState && a.WakeTransport == b.WakeTransport && ms(a.WakeAt) == ms(b.WakeAt)
}

// roomExists returns room_not_found unless tx has the room and s
// reaches it (see As).
func (s *Service) roomExists(tx Tx, id string) error {
	if r, ok, err := tx.Room(id); err != nil || ok && s.reaches(r) {
		return err
	}
	return roomNotFound(id)
}

func roomNotFound(id string) *Error {
	return Errorf(CodeRoomNotFound, "no room has room_id %s", Quote(id)).With("room_id", id).
		WithHint("call list_rooms or join_path to find the room for your path")
}
