package stick

import (
	"context"
	"slices"
	"time"
)

// WakeStatus says how a member's harness session can be woken when it is
// addressed while nothing of it waits, and how the last wake went. It
// never holds a secret: a transport's token stays in the process that
// wakes.
type WakeStatus struct {
	// Transports are the ways its session can be woken, in the order they
	// are tried (claude-inbox, codex-queue).
	Transports []string `json:"transports"`
	// LastState is the last wake's delivery state: queued, ambiguous or
	// failed; "" before the first.
	LastState string `json:"last_state,omitempty"`
	// LastTransport is the transport of the last wake.
	LastTransport string `json:"last_transport,omitempty"`
	// LastAt is when the last wake was reported.
	LastAt *time.Time `json:"last_at,omitempty"`
}

// wakeStatus returns m's WakeStatus, nil when it cannot be woken and never was.
func wakeStatus(m *Member) *WakeStatus {
	if len(m.WakeTransports) == 0 && m.WakeState == "" {
		return nil
	}
	w := &WakeStatus{Transports: append([]string{}, m.WakeTransports...), LastState: m.WakeState, LastTransport: m.WakeTransport}
	if !m.WakeAt.IsZero() {
		at := m.WakeAt
		w.LastAt = &at
	}
	return w
}

// MaxWakeTransports bounds how many transports a member registers.
const MaxWakeTransports = 4

// The reasons a member is woken (WakeClaim.Why).
const (
	// WakeAddressed: a note was addressed to it.
	WakeAddressed = "addressed"
	// WakeHanded: the stick was passed (or released) to it.
	WakeHanded = "handed"
	// WakeConclusion: it was asked for the room's conclusion.
	WakeConclusion = "conclusion_requested"
)

// WakeClaim is a wake the caller claimed with ClaimWake: the newest
// event it is for, who caused it and why.
type WakeClaim struct {
	RoomID string `json:"room_id"`
	// Seq is the event_seq the wake is for.
	Seq int64 `json:"event_seq"`
	// From is the member whose note or pass it is.
	From string `json:"from_agent_id"`
	// Why is WakeAddressed, WakeHanded or WakeConclusion.
	Why string `json:"why"`
}

// RegisterWake records how the caller's harness session can be woken:
// the names of its transports, in the order they are tried. Only the
// names are stored; a transport's secret stays in the process that
// wakes. An empty list says it cannot be woken.
//
// Errors: invalid_argument (transports), room_not_found, room_closed, unknown_member.
func (s *Service) RegisterWake(ctx context.Context, c Caller, roomID string, transports []string) error {
	if err := s.act(ActionRegisterWake, c); err != nil {
		return err
	}
	if len(transports) > MaxWakeTransports {
		return invalidArg("transports", "%d transports are given; at most %d are allowed", len(transports), MaxWakeTransports)
	}
	for _, t := range transports {
		if !isShortName(t, MaxChannelNameLen) {
			return invalidArg("transports", "transport %s is not a transport name (lower-case letters, digits and '-')", Quote(t))
		}
	}
	return s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		m := sn.member(c.AgentID)
		m.WakeTransports = slices.Clone(transports)
		return sn.saveMember(tx, m)
	})
}

// ClaimWake claims the wake the caller's session is due, if any, so that
// one process wakes it once: a note addressed to it that it has not read
// (past its sync cursor) while no wake went since it last read, or the
// stick handed to it (a pass, a release to it, a request for the room's
// conclusion) since the last wake. ok is false when no wake is due. The
// frontend that wakes the session calls it after a commit concerned the
// member (its bell rang) while nothing of it waits, wakes the session,
// then reports how that went with ReportWake.
//
// Errors: invalid_argument, room_not_found, room_closed, unknown_member.
func (s *Service) ClaimWake(ctx context.Context, c Caller, roomID string) (claim WakeClaim, ok bool, err error) {
	if err := s.act(ActionClaimWake, c); err != nil {
		return WakeClaim{}, false, err
	}
	err = s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		m := sn.member(c.AgentID)
		claim, ok, err = sn.wakeDue(tx, m)
		if err != nil || !ok {
			return err
		}
		m.WokenSeq = claim.Seq
		return sn.saveMember(tx, m)
	})
	if err != nil || !ok {
		return WakeClaim{}, false, err
	}
	return claim, true, nil
}

// wakeDue returns the wake m is due, if any (see ClaimWake).
func (sn *snapshot) wakeDue(tx Tx, m *Member) (WakeClaim, bool, error) {
	r := sn.room
	switch {
	case r.State == StateReserved && r.ReservedFor == m.AgentID && r.PendingHandoffSeq > m.WokenSeq:
		claim := WakeClaim{RoomID: r.ID, Seq: r.PendingHandoffSeq, Why: WakeHanded}
		if sn.pending != nil {
			claim.From = sn.pending.From
			if sn.pending.Reason == ReasonConclusionRequested {
				claim.Why = WakeConclusion
			}
		}
		return claim, true, nil
	case m.AddressedSeq > m.SyncCursor && m.WokenSeq <= m.SyncCursor && m.AddressedSeq > m.WokenSeq:
		claim := WakeClaim{RoomID: r.ID, Seq: m.AddressedSeq, Why: WakeAddressed}
		e, found, err := tx.Event(r.ID, m.AddressedSeq)
		if found {
			claim.From = e.From
		}
		return claim, true, err
	}
	return WakeClaim{}, false, nil
}

// AwaitWake blocks until a wake of the caller's session is due while
// idle reports that nothing of the session waits in the room, claims it
// (see ClaimWake) and returns it: the loop of a frontend that wakes an
// idle harness. It looks when the member's bell rings (a note addressed
// to it, the stick handed to it) and every few seconds besides, reading
// first and writing only to claim. ctx's end, or the service's shutdown,
// ends it with ctx's error or canceled.
//
// Errors: those of ClaimWake, and ctx's.
func (s *Service) AwaitWake(ctx context.Context, c Caller, roomID string, idle func() bool) (WakeClaim, error) {
	if err := s.act(ActionAwaitWake, c); err != nil {
		return WakeClaim{}, err
	}
	for {
		bell := s.store.Rung(roomID, c.AgentID)
		if bell == nil {
			bell = s.store.Changed()
		}
		if idle() {
			due := false
			err := s.briefView(ctx, func(tx Tx) error {
				sn, err := s.load(tx, roomID)
				if err != nil {
					return err
				}
				m, err := sn.memberOf(c.AgentID)
				if err != nil {
					return err
				}
				_, due, err = sn.wakeDue(tx, m)
				return err
			})
			if err != nil {
				return WakeClaim{}, err
			}
			if due {
				if claim, ok, err := s.ClaimWake(ctx, c, roomID); err != nil || ok {
					return claim, err
				}
			}
		}
		timer, stop := s.clock.Timer(bellRefreshMax)
		select {
		case <-ctx.Done():
			stop()
			return WakeClaim{}, ctx.Err()
		case <-s.done:
			stop()
			return WakeClaim{}, Errorf(CodeCanceled, "the service is shutting down")
		case <-bell:
		case <-timer:
		}
		stop()
	}
}

// ReportWake records how the caller's last wake went: the transport
// tried last and its delivery state (queued, ambiguous or failed), shown
// in the room's state beside the member.
//
// Errors: invalid_argument, room_not_found, room_closed, unknown_member.
func (s *Service) ReportWake(ctx context.Context, c Caller, roomID, transport, state string) error {
	if err := s.act(ActionReportWake, c); err != nil {
		return err
	}
	switch state {
	case "queued", "ambiguous", "failed":
	default:
		return invalidArg("state", "state must be queued, ambiguous or failed, got %s", Quote(state))
	}
	if !isShortName(transport, MaxChannelNameLen) {
		return invalidArg("transport", "transport %s is not a transport name", Quote(transport))
	}
	return s.memberUpdate(ctx, c, roomID, func(tx Tx, sn *snapshot) error {
		m := sn.member(c.AgentID)
		m.WakeState, m.WakeTransport, m.WakeAt = state, transport, sn.now
		tx.Ring(roomID, "")
		return sn.saveMember(tx, m)
	})
}
