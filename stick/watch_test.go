package stick_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// watchUntil follows a room's state with WatchState, as a live page does,
// until ok accepts it; a wake that never comes fails the test after ten
// seconds. Nothing here polls: each look waits for the watch's channel.
func (e *env) watchUntil(room string, ok func(stick.RoomStatus) bool) stick.RoomStatus {
	e.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		ctx, cancel := context.WithCancel(e.ctx)
		st, changed, err := e.svc.WatchState(ctx, room)
		if err != nil {
			cancel()
			e.t.Fatal(err)
		}
		if ok(st) {
			cancel()
			return st
		}
		select {
		case <-changed:
			cancel()
		case <-deadline:
			cancel()
			e.t.Fatalf("no wake brought the awaited state; the last: %+v", st)
		}
	}
}

func statusOf(st stick.RoomStatus, agent string) string {
	for _, m := range st.Members {
		if m.AgentID == agent {
			return m.Status
		}
	}
	return ""
}

// A commit wakes a watch of a room's state.
func TestWatchStateWakesOnCommits(t *testing.T) {
	e, room, _, codex := byHand(t)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	st, changed, err := e.svc.WatchState(ctx, room)
	if err != nil || st.Owner != "" {
		t.Fatalf("%+v %v", st, err)
	}
	e.claim(codex, room)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("a claim did not wake the watch")
	}
	e.watchUntil(room, func(st stick.RoomStatus) bool { return st.Owner == codex.AgentID && st.TurnID == 1 })
}

// armedWatch starts a watch of room and waits (in real time, as a safety
// net only) until it has armed n clock timers; a watch that closes before
// (a commit's late notice) is started again.
func (e *env) armedWatch(room string, n int) (<-chan struct{}, context.CancelFunc) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithCancel(e.ctx)
		_, changed, err := e.svc.WatchState(ctx, room)
		if err != nil {
			e.t.Fatal(err)
		}
		for e.clock.Timers() < n {
			select {
			case <-changed:
			default:
				if time.Now().After(deadline) {
					e.t.Fatalf("the watch never armed %d timers (has %d)", n, e.clock.Timers())
				}
				time.Sleep(time.Millisecond)
				continue
			}
			break
		}
		select {
		case <-changed:
			cancel()
			continue
		default:
		}
		return changed, cancel
	}
}

// wake waits for a watch's channel to close.
func (e *env) wake(changed <-chan struct{}, what string) {
	e.t.Helper()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		e.t.Fatalf("%s did not wake the watch", what)
	}
}

// A lease that runs out and a presence that lapses change the state with
// no commit: the watch wakes at their deadlines.
func TestWatchStateWakesAtDeadlines(t *testing.T) {
	e, room, ana, codex := byHand(t)
	e.claim(codex, room)
	changed, cancel := e.armedWatch(room, 1)
	e.clock.Advance(e.svc.Defaults().OwnerLeaseTTL + time.Second)
	e.wake(changed, "the lease running out")
	cancel()
	if st := e.state(room); st.State != stick.StateStaleOwner || st.Takeover != stick.ReasonOwnerTimeout {
		t.Fatalf("the lease ran out, yet %+v", st)
	}
	changed, cancel = e.armedWatch(room, 1)
	defer cancel()
	e.clock.Advance(e.svc.Defaults().PresenceTTL)
	e.wake(changed, "a presence lapsing")
	if st := e.state(room); statusOf(st, ana.AgentID) != stick.MemberInactive {
		t.Fatalf("ana's presence lapsed, yet %+v", st.Members)
	}
}

// A member's process that exits commits nothing: the watch wakes by the
// liveness's exit watch, and the next look shows the member gone.
func TestWatchStateWakesWhenAProcessExits(t *testing.T) {
	e, room, _, codex := byHand(t)
	live, kill := liveAgent(t, "claude:2")
	e.join(live)
	e.claim(codex, room)
	e.watchUntil(room, func(st stick.RoomStatus) bool { return statusOf(st, live.AgentID) == stick.MemberActive })
	kill()
	e.watchUntil(room, func(st stick.RoomStatus) bool { return statusOf(st, live.AgentID) == stick.MemberGone })

	holder, killHolder := liveAgent(t, "gemini:3")
	e.join(holder)
	w := e.claim(codex, room)
	e.release(codex, w.Lease(), "over to the next")
	if st := e.state(room); st.ReservedFor != holder.AgentID {
		t.Skipf("the stick went to %s, not the live member", st.ReservedFor)
	}
	e.claim(holder, room)
	killHolder()
	e.watchUntil(room, func(st stick.RoomStatus) bool { return st.State == stick.StateOwnerGone })
}

// WatchRooms lists the rooms and wakes when one is made.
func TestWatchRooms(t *testing.T) {
	e, room, _, _ := byHand(t)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	rooms, changed, err := e.svc.WatchRooms(ctx)
	if err != nil || len(rooms) != 1 || rooms[0].RoomID != room {
		t.Fatalf("rooms %+v, %v", rooms, err)
	}
	made, err := e.svc.JoinPath(e.ctx, agent("codex:1"), stick.JoinRequest{Name: "later"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("a new room did not wake the watch")
		}
		cancel()
		ctx, cancel = context.WithCancel(e.ctx)
		rooms, changed, err = e.svc.WatchRooms(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(rooms, func(r stick.RoomSummary) bool { return r.RoomID == made.RoomID }) {
			break
		}
	}
	cancel()
	// A cancelled watch closes its channel.
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled watch stays open")
	}
}
