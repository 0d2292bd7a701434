package stick

import (
	"context"
	"time"

	"github.com/stickhq/stick/procid"
)

// A holder at work renews its lease by working: every call it makes in its
// room counts as a heartbeat. Writes renew inside their own transaction;
// reads call Attend, which takes the write lock only when a renewal is due,
// so a holder reading in a loop costs one small write per heartbeat
// interval. KeepAlive lets a frontend that knows the holder's process
// lives (an MCP server and its harness) keep the lease between calls,
// bounded by the holder's presence so an idle holder still becomes
// visibly stale_owner.

// holds reports whether c holds the stick in the room through the process
// that claimed it (or either process is unknown) and that process is not
// proven gone: the same rule that gives a holder its lease back from
// WaitForTurn, so two live processes sharing an agent id never both renew.
func (sn *snapshot) holds(c Caller) bool {
	r := sn.room
	if r.State != StateOwned || r.Owner != c.AgentID || sn.ownerStatus == procid.Gone {
		return false
	}
	m := sn.member(c.AgentID)
	if m == nil {
		return false
	}
	return m.Process.IsZero() || c.facts().IsZero() || m.Process.Same(c.facts())
}

// renewalDue reports whether the holder's lease was last renewed at least a
// heartbeat interval ago, or has less left than a fresh lease would after one.
func (sn *snapshot) renewalDue() bool {
	return sn.room.LeaseExpiresAt.Sub(sn.now) <= sn.policy.OwnerLeaseTTL-sn.policy.HeartbeatInterval
}

// attend renews c's lease as Heartbeat would when c holds the stick and the
// renewal is due. Every call of a member in its room runs it, after its
// presence was refreshed.
func (sn *snapshot) attend(tx Tx, c Caller) error {
	if !sn.holds(c) || !sn.renewalDue() {
		return nil
	}
	r := &sn.room
	r.LeaseExpiresAt = sn.renewedLease()
	r.UpdatedAt = sn.now
	return saveRoom(tx, *r)
}

// renewedLease is when the holder's lease ends once renewed now: a lease
// TTL from now, but never earlier than the end already granted, so a
// policy change that shortened the lease never takes time from a holder.
func (sn *snapshot) renewedLease() time.Time {
	return later(sn.room.LeaseExpiresAt, sn.now.Add(sn.policy.OwnerLeaseTTL))
}

// touchDue reports whether a call by c, the member m, has anything to
// write: its presence a presence grain old or more (see presenceGrain), or,
// when c holds the stick, a lease renewal due (see renewalDue).
func (sn *snapshot) touchDue(m *Member, c Caller) bool {
	return sn.now.Sub(m.LastSeenAt) >= sn.presenceGrain() || sn.holds(c) && sn.renewalDue()
}

// keptLease is the end KeepAlive gives the lease of the holder agent: a
// full lease from now, but never past one presence TTL after its last call.
func (sn *snapshot) keptLease(agent string) time.Time {
	exp := sn.now.Add(sn.policy.OwnerLeaseTTL)
	if until := sn.member(agent).LastSeenAt.Add(sn.policy.PresenceTTL); until.Before(exp) {
		return until
	}
	return exp
}

// heartbeatDue reports whether a heartbeat by the holder agent would change
// anything worth a write: move its lease by a lease grain or more, or its
// presence by a presence grain or more (see presenceGrain).
func (sn *snapshot) heartbeatDue(agent string) bool {
	m := sn.member(agent)
	return m == nil || sn.renewedLease().Sub(sn.room.LeaseExpiresAt) >= sn.leaseGrain() ||
		sn.now.Sub(m.LastSeenAt) >= sn.presenceGrain()
}

// leaseGrain is how far a lease's end may lag behind a heartbeat's renewal:
// a second, or a tenth of the lease TTL when that is shorter. A holder that
// heartbeats in a tight loop renews its lease once a grain, not at every
// call.
func (sn *snapshot) leaseGrain() time.Duration {
	return min(time.Second, sn.policy.OwnerLeaseTTL/10)
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// readDue reports whether a read by c should be recorded: c holds the stick
// and its lease is due for renewal or its presence is a heartbeat interval old.
func (sn *snapshot) readDue(c Caller) bool {
	if !sn.holds(c) {
		return false
	}
	return sn.renewalDue() || sn.now.Sub(sn.member(c.AgentID).LastSeenAt) >= sn.policy.HeartbeatInterval
}

// Attend records that c read the room roomID (its state, log, document or
// search results): when c holds the stick there, the read counts as a
// heartbeat, renewing the lease and c's presence once a renewal is due.
// Frontends call it for every read a known member makes in a room. It
// reads the room row and, only for the holder, its members; it takes the
// write lock only when a renewal is due. It changes nothing for anyone but
// the holder, and a failure (a busy database) only postpones the renewal
// to the holder's next call, so it reports none: it reports whether it
// renewed.
func (s *Service) Attend(ctx context.Context, c Caller, roomID string) bool {
	if s.act(ActionAttend, c) != nil || c.validate() != nil || requireRoomID(roomID) != nil {
		return false
	}
	due := false
	err := s.briefView(ctx, func(tx Tx) error {
		r, ok, err := tx.Room(roomID)
		if err != nil || !ok || r.State != StateOwned || r.Owner != c.AgentID {
			return err
		}
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		due = sn.vouch(c) == nil && sn.readDue(c)
		return nil
	})
	if err != nil || !due {
		return false
	}
	renewed := false
	err = s.store.Update(ctx, func(tx Tx) error {
		sn, err := s.load(tx, roomID)
		renewed = false
		if err != nil || sn.vouch(c) != nil || !sn.readDue(c) {
			return err
		}
		if err := sn.touch(tx, sn.member(c.AgentID)); err != nil {
			return err
		}
		renewed = true
		return sn.attend(tx, c)
	})
	return err == nil && renewed
}

// KeepAlive keeps the lease l of the holder c alive between c's calls, for
// a frontend that knows c's process lives (stick mcp, whose connection
// ends with its harness). Every heartbeat interval it renews the lease, as
// long as the lease is current, c's process is not proven gone and c made
// a call within the room's presence TTL; it never renews past the end of
// that presence TTL and never refreshes c's presence. So a holder that
// works keeps its lease however long a step takes, and a holder that went
// idle lets it lapse one presence TTL after its last call (or when its
// last renewal runs out, if later) and shows as stale_owner.
//
// A renewal that would move the lease by less than a second (a tenth of
// the lease TTL when that is shorter), such as the first one right after
// a claim, writes nothing.
//
// KeepAlive blocks until the lease is no longer current (released,
// passed, taken over, the room closed), ctx ends or the Service shuts
// down; it then returns nil. A busy database postpones a renewal to the
// next interval.
//
// Errors: invalid_argument, room_not_found, and other store errors.
func (s *Service) KeepAlive(ctx context.Context, c Caller, l Lease) error {
	if err := s.act(ActionKeepAlive, c); err != nil {
		return err
	}
	if err := c.validate(); err != nil {
		return err
	}
	if err := l.validate(); err != nil {
		return err
	}
	for {
		every := s.defaults.HeartbeatInterval
		over, due := false, false
		// Read first: a lease granted or renewed a moment ago (KeepAlive
		// starts right after a claim) is not worth a write.
		look := func(write bool) func(Tx) error {
			return func(tx Tx) error {
				sn, err := s.load(tx, l.RoomID)
				if err != nil {
					return err
				}
				every = sn.policy.HeartbeatInterval
				if sn.checkLease(c.AgentID, l) != nil || !sn.holds(c) {
					over = true
					return nil
				}
				exp := sn.keptLease(c.AgentID)
				if due = exp.Sub(sn.room.LeaseExpiresAt) >= sn.leaseGrain(); !due || !write {
					return nil
				}
				sn.room.LeaseExpiresAt = exp
				sn.room.UpdatedAt = sn.now
				return saveRoom(tx, sn.room)
			}
		}
		err := s.briefView(ctx, look(false))
		if err == nil && !over && due {
			err = s.store.Update(ctx, look(true))
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case ErrorCode(err) == CodeDBBusy:
		case err != nil:
			return err
		case over:
			return nil
		}
		if !s.sleep(ctx, every) {
			return nil
		}
	}
}

// sleep waits d on the service's clock; false when ctx ended or the
// Service shut down first.
func (s *Service) sleep(ctx context.Context, d time.Duration) bool {
	c, stop := s.clock.Timer(d)
	defer stop()
	select {
	case <-c:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}
