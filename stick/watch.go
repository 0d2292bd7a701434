package stick

import (
	"context"
	"time"

	"github.com/stickhq/stick/procid"
)

// Watching what a reader sees of rooms change, for a page that shows a
// room's roster or the list of rooms live. Most changes are commits; the
// rest come with no commit at all: a lease, a claim or a member's
// presence runs out, or a member's process exits. A watch wakes for all
// of them, so a live page never polls.

// WatchState returns a room's state, as RoomState does, and a channel
// that closes once that state may have changed: at the next commit, in
// this process or another, that changed the room (a claim, a heartbeat, a
// join, a note, ...: its bells, see roomChanged), and not at other
// rooms' commits;
// when a deadline the state derives from passes (the holder's lease, a
// reservation's claim, a member's presence); or when the recorded process
// of a member that shows as active exits, which nothing commits (see
// watchSet). It may close with nothing changed; it also closes when ctx
// ends or the Service shuts down. A reader calls it again with each
// wake; cancelling ctx releases what the last call watches.
//
// Errors: invalid_argument, room_not_found.
func (s *Service) WatchState(ctx context.Context, roomID string) (RoomStatus, <-chan struct{}, error) {
	if err := s.allow(ActionWatchState); err != nil {
		return RoomStatus{}, nil, err
	}
	if err := requireRoomID(roomID); err != nil {
		return RoomStatus{}, nil, err
	}
	// Taken before the read, so a commit after the read wakes it.
	changed := s.roomChanged(ctx, roomID)
	var out RoomStatus
	var w watchSet
	err := s.store.View(ctx, func(tx Tx) error {
		w = watchSet{}
		sn, err := s.load(tx, roomID)
		if err != nil {
			return err
		}
		w.add(sn)
		out, err = s.status(tx, sn)
		return err
	})
	if err != nil {
		return RoomStatus{}, nil, err
	}
	return out, s.watch(ctx, changed, w), nil
}

// WatchRooms returns every room s reaches, as ListRooms with no path does,
// and a channel that closes once any of them may have changed, or a room
// was made: as WatchState's, for all of them.
func (s *Service) WatchRooms(ctx context.Context) ([]RoomSummary, <-chan struct{}, error) {
	if err := s.allow(ActionWatchRooms); err != nil {
		return nil, nil, err
	}
	changed := s.store.Changed()
	var out []RoomSummary
	var w watchSet
	err := s.store.View(ctx, func(tx Tx) error {
		w = watchSet{}
		rooms, err := tx.RoomsUnder("", true)
		if err != nil {
			return err
		}
		out, err = s.summariesWatched(tx, s.reachable(rooms), &w)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return out, s.watch(ctx, changed, w), nil
}

// watchSet is what changes what a reader sees of rooms with no commit:
// the earliest deadline their states derive from, and the processes
// whose exit would show (a member's status turning gone, and with it
// the room's state).
type watchSet struct {
	at    time.Time
	procs []watchedProc
	seen  map[procKey]bool
}

// watchedProc is a process to watch, with the proxy grace of its room
// and its status when read.
type watchedProc struct {
	p     Process
	grace time.Duration
	was   procid.Status
}

// add adds what would change sn with no commit: the deadlines of its
// state (wakeAt), and the processes of its members that a read judges
// alive (or, with a GraceLiveness, not judged yet): the holder and the
// reserved recipient, and every other present member. A member that is
// not present shows as inactive whatever its process does; a closed room
// changes only by commits.
func (w *watchSet) add(sn *snapshot) {
	r := sn.room
	if r.State == StateClosed {
		return
	}
	if at := sn.wakeAt(""); !at.IsZero() && (w.at.IsZero() || at.Before(w.at)) {
		w.at = at
	}
	for i := range sn.members {
		m := &sn.members[i]
		if m.Process.IsZero() {
			continue
		}
		var st procid.Status
		switch {
		case r.State == StateOwned && m.AgentID == r.Owner:
			st = sn.ownerStatus
		case r.State == StateReserved && m.AgentID == r.ReservedFor:
			st = sn.recipientStatus
		case !sn.present(m):
			continue
		default:
			st = sn.verdict(m.Process)
		}
		k := keyOf(m.Process, sn.policy.ProxyGrace)
		if (st == procid.Alive || sn.graceful && st == procid.Unknown) && !w.seen[k] {
			if w.seen == nil {
				w.seen = map[procKey]bool{}
			}
			w.seen[k] = true
			w.procs = append(w.procs, watchedProc{p: m.Process, grace: sn.policy.ProxyGrace, was: st})
		}
	}
}

// watch returns a channel that closes at the first of: changed, w's
// deadline, the exit of one of w's processes (through the Liveness's exit
// watch; one it cannot watch is checked every WithLivenessPoll, and wakes
// only when its status changed), ctx's end, the Service's shutdown. A
// process that exited is judged afresh first, so the next read shows it
// gone rather than a verdict cached before.
func (s *Service) watch(ctx context.Context, changed <-chan struct{}, w watchSet) <-chan struct{} {
	out := make(chan struct{})
	wctx, cancel := context.WithCancel(ctx)
	fired := make(chan watchedProc, len(w.procs))
	var polled []watchedProc
	for _, wp := range w.procs {
		var ch <-chan struct{}
		ok := false
		switch l := s.liveness.(type) {
		case GraceLiveness:
			ch, ok = l.WatchWithin(wctx, wp.p, wp.grace)
		case ExitWatcher:
			ch, ok = l.Watch(wctx, wp.p)
		}
		if !ok {
			polled = append(polled, wp)
			continue
		}
		go func() {
			select {
			case <-ch:
				fired <- wp
			case <-wctx.Done():
			}
		}()
	}
	go func() {
		defer close(out)
		defer cancel()
		var deadline <-chan time.Time
		if !w.at.IsZero() {
			var stop func()
			deadline, stop = s.clock.Timer(max(w.at.Sub(s.clock.Now()), 0))
			defer stop()
		}
		for {
			var poll <-chan time.Time
			stopPoll := func() {}
			if len(polled) > 0 {
				poll, stopPoll = s.clock.Timer(s.livenessPoll)
			}
			select {
			case <-ctx.Done():
			case <-s.done:
			case <-changed:
			case <-deadline:
			case wp := <-fired:
				s.check(wp.p, wp.grace)
			case <-poll:
				stopPoll()
				if !s.anyChanged(polled) {
					continue
				}
			}
			stopPoll()
			return
		}
	}()
	return out
}

// anyChanged judges the processes afresh and reports whether any of them
// has another status than when it was read.
func (s *Service) anyChanged(procs []watchedProc) bool {
	for _, wp := range procs {
		if s.check(wp.p, wp.grace) != wp.was {
			return true
		}
	}
	return false
}

// roomChanged returns a channel that closes at the next commit that
// changed roomID's state or appended to its log (their bells), or at the
// refresh of a missed bell (logRefresh), or when ctx ends or the Service
// shuts down; from a store that cannot ring bells, at the next commit.
func (s *Service) roomChanged(ctx context.Context, roomID string) <-chan struct{} {
	state, log := s.store.Rung(roomID, stateBell), s.store.Rung(roomID, logBell)
	if state == nil || log == nil {
		return s.store.Changed()
	}
	out := make(chan struct{})
	refresh, stop := s.clock.Timer(logRefresh)
	go func() {
		defer close(out)
		defer stop()
		select {
		case <-state:
		case <-log:
		case <-refresh:
		case <-ctx.Done():
		case <-s.done:
		}
	}()
	return out
}
