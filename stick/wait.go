package stick

import (
	"context"
	"strconv"
	"time"
)

// WaitStatus is the outcome of WaitForTurn.
type WaitStatus string

// The wait outcomes of the protocol.
const (
	YourTurn          WaitStatus = "your_turn"
	NotYet            WaitStatus = "not_yet"
	TakeoverAvailable WaitStatus = "takeover_available"
	Closed            WaitStatus = "closed"
	// Interrupted ends a wait early: a note addressed to the caller and
	// marked interrupt arrived (WaitResult.Addressed holds it).
	Interrupted WaitStatus = "interrupted"
)

// WaitRequest asks for the stick.
type WaitRequest struct {
	RoomID string
	// Cursor, when set (a previous result's Cursor), makes the call also return
	// not_yet as soon as the room's log has moved past it.
	Cursor string
	// MaxWait bounds how long the call blocks: nil means the room policy's
	// wait_for_turn_max_wait; 0 means one atomic attempt that never blocks.
	// A negative value or one above MaxWaitLimit is invalid_argument.
	MaxWait *time.Duration
}

// Lease is the fencing triple every owner mutation carries.
type Lease struct {
	RoomID  string `json:"room_id"`
	LeaseID string `json:"lease_id"`
	TurnID  int64  `json:"turn_id"`
}

// WaitResult is the outcome of one WaitForTurn call. Which fields are set
// depends on Status, as in the protocol.
type WaitResult struct {
	Status WaitStatus `json:"status"`
	RoomID string     `json:"room_id"`
	// TurnID, LeaseID and LeaseExpiresAt are set on your_turn (TurnID also on takeover_available).
	TurnID         int64      `json:"turn_id,omitempty"`
	LeaseID        string     `json:"lease_id,omitempty"`
	LeaseExpiresAt *time.Time `json:"lease_expires_at,omitempty"`
	// NextHeartbeatAt is when the new holder should heartbeat.
	NextHeartbeatAt *time.Time `json:"next_heartbeat_at,omitempty"`
	// Handoff is the prior holder's handoff; nil only for the first claim in a fresh room.
	Handoff     *Handoff `json:"handoff"`
	HandoffSeq  int64    `json:"handoff_event_seq,omitempty"`
	FromAgentID string   `json:"from_agent_id,omitempty"`
	// Reason is a GrantReason on your_turn and a TakeoverReason on takeover_available.
	Reason       string    `json:"reason,omitempty"`
	Cursor       string    `json:"cursor,omitempty"`
	RoomState    RoomState `json:"room_state,omitempty"`
	CurrentOwner string    `json:"current_owner,omitempty"`
	ReservedFor  string    `json:"reserved_for,omitempty"`
	// Addressed are the notes addressed to the caller that it has not been
	// given yet (past its sync cursor), oldest first, at most
	// MaxAddressedInResult; reading them here does not move the cursor.
	Addressed []Event `json:"addressed,omitempty"`
}

// Lease returns the fencing triple of a your_turn result.
func (w WaitResult) Lease() Lease {
	return Lease{RoomID: w.RoomID, LeaseID: w.LeaseID, TurnID: w.TurnID}
}

// WaitForTurn claims the stick when the caller may (the room is idle, or it is
// reserved for the caller, even after the claim timeout as long as no
// takeover committed), and otherwise blocks until that becomes possible,
// takeover opens for the caller (takeover_available; it never takes over by
// itself), the room closes, the cursor is passed, or MaxWait elapses
// (not_yet). The caller's presence is refreshed. A holder that calls it gets
// its current lease back, renewed as by any call of the holder (see attend). Cancelling ctx ends the call at once with ctx's
// error; Service.Shutdown ends it with the current not_yet.
//
// Commits by any process wake the waiter through Store.Changed; lease and
// claim expiries through the clock; a holder's death through the Liveness's
// exit watch, or a poll every WithLivenessPoll when it has none.
//
// Errors: invalid_argument, room_not_found, unknown_member (join first).
func (s *Service) WaitForTurn(ctx context.Context, c Caller, req WaitRequest) (WaitResult, error) {
	if err := s.act(ActionWaitForTurn, c); err != nil {
		return WaitResult{}, err
	}
	if err := c.validate(); err != nil {
		return WaitResult{}, err
	}
	if err := requireRoomID(req.RoomID); err != nil {
		return WaitResult{}, err
	}
	cursor, err := parseCursor(req.Cursor)
	if err != nil {
		return WaitResult{}, err
	}
	if req.MaxWait != nil && (*req.MaxWait < 0 || *req.MaxWait > MaxWaitLimit) {
		return WaitResult{}, invalidArg("max_wait_ms", "max_wait_ms must be between 0 and %d (%v), got %d",
			MaxWaitLimit.Milliseconds(), MaxWaitLimit, req.MaxWait.Milliseconds()).
			WithHint("wait again after a not_yet to wait longer")
	}
	w := &waiter{s: s, c: c, roomID: req.RoomID, cursor: cursor, interruptAfter: -1}
	res, err := w.wait(ctx, req)
	if err == nil && w.unread {
		res.Addressed, err = s.addressed(ctx, c.AgentID, req.RoomID, w.readThrough)
		if err == nil && len(res.Addressed) > 0 {
			err = s.told(ctx, c, req.RoomID, res.Addressed[len(res.Addressed)-1].Seq)
		}
	}
	return res, err
}

// wait is WaitForTurn's call once its request is checked.
func (w *waiter) wait(ctx context.Context, req WaitRequest) (WaitResult, error) {
	// A call that may block subscribes to its wake-ups before its first
	// look, so that look serves as the first of the blocking loop.
	var sub *wakeups
	if req.MaxWait == nil || *req.MaxWait > 0 {
		sub = w.subscribe()
	}
	res, _, err := w.attempt(ctx, lookAndTouch, false)
	if err != nil || w.done(res) {
		return res, err
	}
	maxWait := w.policy.WaitMaxWait
	if req.MaxWait != nil {
		maxWait = *req.MaxWait
	}
	if maxWait == 0 {
		return res, nil
	}
	return w.block(ctx, res, maxWait, sub)
}

// waiter carries one WaitForTurn call's state between attempts.
type waiter struct {
	s       *Service
	c       Caller
	roomID  string
	cursor  int64 // -1 when none
	lastSeq int64
	policy  Policy
	wakeAt  time.Time
	watch   Process
	touched time.Time
	// refreshEvery paces re-reads while listening to bells (paceRefresh).
	refreshEvery time.Duration
	// interruptAfter is the room's last event_seq at the first look (-1
	// before it): a note marked interrupt addressed to the caller after it
	// ends the call.
	interruptAfter int64
	// unread is set when the last look found notes addressed to the
	// caller past its sync cursor, readThrough.
	unread      bool
	readThrough int64
}

// block waits for wake-ups until a terminal result, the cursor moving, or
// maxWait. sub, when not nil, was taken before the look that gave res.
func (w *waiter) block(ctx context.Context, res WaitResult, maxWait time.Duration, sub *wakeups) (WaitResult, error) {
	s := w.s
	deadline, stopDeadline := s.clock.Timer(maxWait)
	defer stopDeadline()
	var ex exitWatch
	defer ex.stop()
	full, mode := false, lookOnly
	for {
		skipped := false
		if sub == nil {
			sub = w.subscribe()
			// After a commit alone, the room is re-read only if its log moved;
			// heartbeats and presence refreshes append no event.
			full = full || (!w.wakeAt.IsZero() && !s.clock.Now().Before(w.wakeAt))
			var r WaitResult
			var err error
			r, skipped, err = w.attempt(ctx, mode, !full)
			if err != nil {
				return res, err
			}
			if !skipped {
				if res = r; w.done(res) {
					return res, nil
				}
			}
		}
		changed, mine, room := sub.changed, sub.mine, sub.room
		sub = nil
		full, mode = false, lookOnly
		ex.follow(ctx, w)
		var refresh <-chan time.Time
		stopRefresh := func() {}
		if mine != nil {
			// Started after the look, at the pace that look calls for.
			w.paceRefresh(skipped)
			refresh, stopRefresh = s.clock.Timer(w.refreshEvery)
		}
		var expiry, presence <-chan time.Time
		stopExpiry, stopPresence := func() {}, func() {}
		if !w.wakeAt.IsZero() {
			expiry, stopExpiry = s.clock.Timer(max(w.wakeAt.Sub(s.clock.Now()), 0))
		}
		if half := w.policy.PresenceTTL / 2; half > 0 {
			presence, stopPresence = s.clock.Timer(max(w.touched.Add(half).Sub(s.clock.Now()), 0))
		}
		var stop, timeUp bool
		select {
		case <-ctx.Done():
			stop = true
		case <-s.done:
			stop = true
		case <-deadline:
			timeUp = true
		case <-changed:
		case <-mine:
			// The caller's own bell rings when the stick is handed to
			// it: look under the write lock at once, to claim in one
			// transaction instead of a read and then a write.
			mode = writeAtOnce
		case <-room:
		case <-refresh:
		case <-expiry:
			full = true
		case <-ex.ch:
			full = true
			ex.fired()
		case <-presence:
			// A long wait keeps the caller active for sequence and takeover checks.
			full, mode = true, lookAndTouch
		}
		stopExpiry()
		stopPresence()
		stopRefresh()
		switch {
		case stop:
			return res, ctx.Err()
		case timeUp:
			res, _, err := w.attempt(ctx, lookOnly, false)
			return res, err
		}
	}
}

// A waiter that listens to bells re-reads the room's log anyway now and
// then (only the last event sequence, unless it moved). Bells ring only
// for the commits that concern a waiter, so this is how it follows the
// rest (a new recipient whose process to watch, a deadline moved earlier),
// and what a bell lost with a writer killed between its commit and its
// ring costs. The pace is bellRefreshMin while the room moves and slows,
// doubling, to bellRefreshMax while it does not, so idle waiters cost
// next to nothing.
const (
	bellRefreshMin = 250 * time.Millisecond
	bellRefreshMax = 4 * time.Second
)

// paceRefresh sets the next refresh interval: back to the fastest after a
// look that found the log moved, slower after one that did not, and never
// slower than a quarter of the room's claim and lease TTLs, so that a
// deadline this waiter has not heard of (a reservation for another member)
// reaches it soon after it passes.
func (w *waiter) paceRefresh(unmoved bool) {
	switch {
	case !unmoved || w.refreshEvery == 0:
		w.refreshEvery = bellRefreshMin
	default:
		w.refreshEvery = min(2*w.refreshEvery, bellRefreshMax)
	}
	for _, ttl := range []time.Duration{w.policy.ClaimTTL, w.policy.OwnerLeaseTTL} {
		if ttl > 0 {
			w.refreshEvery = min(w.refreshEvery, max(ttl/4, 25*time.Millisecond))
		}
	}
}

// subscribe returns what wakes the waiter for commits, before it looks at
// the room: with a cursor every commit (changed), as the log moving past
// the cursor ends the call; otherwise the caller's own bell and the room's
// (mine, room), to which block adds a periodic refresh. A store that
// cannot ring bells gives changed instead.
func (w *waiter) subscribe() *wakeups {
	s := w.s
	if w.cursor < 0 {
		mine, room := s.store.Rung(w.roomID, w.c.AgentID), s.store.Rung(w.roomID, "")
		if mine != nil && room != nil {
			return &wakeups{mine: mine, room: room}
		}
	}
	return &wakeups{changed: s.store.Changed()}
}

// wakeups are the channels a waiter listens to between looks (see
// subscribe).
type wakeups struct {
	changed, mine, room <-chan struct{}
}

// done reports whether res ends the call: a terminal status, or a log that
// has moved past the caller's cursor.
func (w *waiter) done(res WaitResult) bool {
	return res.Status != NotYet || (w.cursor >= 0 && w.lastSeq > w.cursor)
}

// exitWatch follows the process whose death would open takeover for a
// waiter: through the Liveness's exit watch where it has one (with the
// room's proxy grace for a GraceLiveness), else (and for a
// process whose watch fired while Check still found it alive) by a periodic
// re-check every livenessPoll, so the waiter never spins.
type exitWatch struct {
	watched  Process
	ch       <-chan struct{}
	cancel   context.CancelFunc
	distrust Process
}

func (x *exitWatch) follow(ctx context.Context, w *waiter) {
	if w.watch == x.watched && x.ch != nil {
		return
	}
	x.stop()
	x.watched = w.watch
	if w.watch.IsZero() {
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	x.cancel = cancel
	if !w.watch.Same(x.distrust) {
		var ch <-chan struct{}
		ok := false
		switch l := w.s.liveness.(type) {
		case GraceLiveness:
			ch, ok = l.WatchWithin(wctx, w.watch, w.policy.ProxyGrace)
		case ExitWatcher:
			ch, ok = l.Watch(wctx, w.watch)
		}
		if ok {
			x.ch = ch
			return
		}
	}
	ch := make(chan struct{})
	poll, stopPoll := w.s.clock.Timer(w.s.livenessPoll)
	go func() {
		defer stopPoll()
		select {
		case <-poll:
			close(ch)
		case <-wctx.Done():
		}
	}()
	x.ch = ch
}

// fired records that the watch reported an exit; if the next attempt still
// finds the process alive, follow falls back to polling it.
func (x *exitWatch) fired() {
	x.distrust = x.watched
	x.stop()
}

func (x *exitWatch) stop() {
	if x.cancel != nil {
		x.cancel()
	}
	x.watched, x.ch, x.cancel = Process{}, nil, nil
}

// attemptMode says when an attempt takes the write lock.
type attemptMode int

const (
	// lookOnly reads, and writes only to claim.
	lookOnly attemptMode = iota
	// lookAndTouch reads, and writes to claim or when the caller's
	// presence (or its lease, when it holds the stick) is due a refresh.
	lookAndTouch
	// writeAtOnce evaluates under the write lock without reading first:
	// for a caller whose own bell rang, which is about to claim.
	writeAtOnce
)

// attempt evaluates the room once. It reads in a read transaction and only
// takes the write lock when it must write (see attemptMode). With ifMoved
// it first reads only the room's last event sequence, in the same
// transaction, and skips the evaluation (skipped) when the log has not
// moved since the last attempt: one cheap read per commit for waiters the
// commit does not concern.
func (w *waiter) attempt(ctx context.Context, mode attemptMode, ifMoved bool) (res WaitResult, skipped bool, err error) {
	var write bool
	fn := func(locked bool) func(Tx) error {
		return func(tx Tx) error {
			skipped = false // a retried transaction decides afresh
			if ifMoved && !locked {
				seq, err := tx.LastSeq(w.roomID)
				if err != nil || seq == w.lastSeq {
					skipped = true
					return err
				}
			}
			var err error
			res, write, err = w.evaluate(tx, locked, mode == lookAndTouch)
			return err
		}
	}
	if mode != writeAtOnce {
		if err := w.s.briefView(ctx, fn(false)); err != nil || skipped || !write {
			return res, skipped, err
		}
	}
	err = w.s.store.Update(ctx, fn(true))
	return res, false, err
}

// evaluate decides one attempt inside tx. When locked is false it writes
// nothing and reports in write whether the attempt must be redone under the
// write lock: to claim, or (with touch) to refresh the caller's presence or
// renew its lease. Under the lock it refreshes them and claims.
func (w *waiter) evaluate(tx Tx, locked, touch bool) (res WaitResult, write bool, err error) {
	s := w.s
	sn, err := s.load(tx, w.roomID)
	if err != nil {
		return WaitResult{}, false, err
	}
	m, err := sn.memberOf(w.c.AgentID)
	if err != nil {
		return WaitResult{}, false, err
	}
	if err := sn.vouch(w.c); err != nil {
		return WaitResult{}, false, err
	}
	if locked {
		if err := sn.touch(tx, m); err != nil {
			return WaitResult{}, false, err
		}
		if err := sn.attend(tx, w.c); err != nil {
			return WaitResult{}, false, err
		}
		w.touched = sn.now
	} else {
		w.touched = m.LastSeenAt
		write = touch && sn.touchDue(m, w.c)
	}
	kind, reason := sn.waitDecision(w.c)
	r := &sn.room
	res = WaitResult{RoomID: r.ID}
	switch kind {
	case waitClosed:
		res.Status = Closed
	case waitClaim:
		if !locked {
			return res, true, nil
		}
		ev, err := s.grant(tx, sn, w.c, Event{Type: EventClaim, Reason: string(reason)})
		if err != nil {
			return WaitResult{}, false, err
		}
		res = s.yourTurn(sn, ev, reason)
	case waitRedeliver:
		ev, ok, err := tx.Event(r.ID, r.GrantSeq)
		if err != nil {
			return WaitResult{}, false, err
		}
		reason, sn.pending = GrantTakeover, nil
		if ok && ev.Type == EventClaim {
			reason = GrantReason(ev.Reason)
			if ev.Ref != 0 {
				h, ok, err := tx.Event(r.ID, ev.Ref)
				if err != nil {
					return WaitResult{}, false, err
				}
				if ok {
					sn.pending = &h
				}
			}
		}
		res = s.yourTurn(sn, ev, reason)
	case waitTakeover:
		res.Status = TakeoverAvailable
		res.TurnID = r.TurnID
		res.Reason = string(sn.takeoverReason())
		res.RoomState = sn.state()
		res.CurrentOwner, res.ReservedFor = r.Owner, r.ReservedFor
	default:
		res.Status = NotYet
		res.RoomState = sn.state()
		res.CurrentOwner, res.ReservedFor = r.Owner, r.ReservedFor
	}
	if w.lastSeq, err = tx.LastSeq(r.ID); err != nil {
		return WaitResult{}, false, err
	}
	if w.interruptAfter < 0 {
		w.interruptAfter = w.lastSeq
	}
	if res.Status == NotYet && m.InterruptSeq > w.interruptAfter {
		res.Status = Interrupted
	}
	w.unread, w.readThrough = m.AddressedSeq > m.SyncCursor, m.SyncCursor
	res.Cursor = strconv.FormatInt(w.lastSeq, 10)
	w.policy, w.wakeAt, w.watch = sn.policy, sn.wakeAt(w.c.AgentID), sn.watched()
	return res, write, nil
}

// yourTurn builds the your_turn result for the holder of sn, with the handoff
// it received (sn.pending before the grant consumed it).
func (s *Service) yourTurn(sn *snapshot, grant Event, reason GrantReason) WaitResult {
	r := sn.room
	lease, next := r.LeaseExpiresAt, sn.nextHeartbeat()
	res := WaitResult{
		Status: YourTurn, RoomID: r.ID, TurnID: r.TurnID, LeaseID: r.LeaseID,
		LeaseExpiresAt: &lease, NextHeartbeatAt: &next, Reason: string(reason), RoomState: sn.state(),
		CurrentOwner: r.Owner,
	}
	if sn.pending != nil && sn.pending.Seq == grant.Ref && sn.pending.Handoff != nil {
		res.Handoff, res.HandoffSeq, res.FromAgentID = sn.pending.Handoff, sn.pending.Seq, sn.pending.From
	}
	return res
}

func parseCursor(c string) (int64, error) {
	if c == "" {
		return -1, nil
	}
	if err := checkLen("cursor", c, MaxIDLen); err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(c, 10, 64)
	if err != nil || n < 0 {
		return 0, invalidArg("cursor", "cursor %s is not a cursor returned by wait_for_turn", Quote(c)).
			WithHint("omit cursor, or pass the cursor of the previous wait_for_turn result")
	}
	return n, nil
}
