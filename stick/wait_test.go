package stick_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

type waitOutcome struct {
	res stick.WaitResult
	err error
}

// waitAsync starts a blocking WaitForTurn and returns its outcome channel.
func (e *env) waitAsync(ctx context.Context, c stick.Caller, req stick.WaitRequest) <-chan waitOutcome {
	ch := make(chan waitOutcome, 1)
	go func() {
		res, err := e.svc.WaitForTurn(ctx, c, req)
		ch <- waitOutcome{res, err}
	}()
	return ch
}

// settle waits (in real time, as a safety net only) until a blocked call has armed n clock timers.
func (e *env) settle(n int) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.clock.Timers() < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("blocked call never armed %d timers (has %d)", n, e.clock.Timers())
		}
		time.Sleep(time.Millisecond)
	}
}

// blockedWaiter sets up a room where a holds the stick and b is blocked in
// WaitForTurn under ctx; it returns the room, a's lease and b's outcome.
func (e *env) blockedWaiter(ctx context.Context) (string, stick.Lease, <-chan waitOutcome) {
	e.t.Helper()
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	l := e.claim(a, room).Lease()
	ch := e.waitAsync(ctx, b, stick.WaitRequest{RoomID: room})
	e.settle(1)
	return room, l, ch
}

// outcome returns what a blocked call answered, failing after ten
// seconds of real time (a safety net only).
func outcome[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(10 * time.Second):
		t.Fatal("the blocked call (wait_for_turn, wait for members) did not return")
	}
	var zero T
	return zero
}

func TestWaitBlocksUntilReleaseThenClaims(t *testing.T) {
	e := newEnv(t)
	_, l, ch := e.blockedWaiter(e.ctx)
	select {
	case o := <-ch:
		t.Fatalf("wait returned while a holds the stick: %+v", o)
	default:
	}
	e.release(agent("a"), l, "your go")
	o := outcome(t, ch)
	if o.err != nil || o.res.Status != stick.YourTurn || o.res.Handoff.Status != "your go" {
		t.Fatalf("waiter: %+v %v", o.res, o.err)
	}
}

func TestWaitReturnsNotYetAtMaxWait(t *testing.T) {
	e := newEnv(t)
	_, _, ch := e.blockedWaiter(e.ctx)
	e.clock.Advance(30 * time.Second) // the policy default max wait
	o := outcome(t, ch)
	if o.err != nil || o.res.Status != stick.NotYet || o.res.CurrentOwner != "a" || o.res.Cursor == "" {
		t.Fatalf("at max wait: %+v %v", o.res, o.err)
	}
}

func TestWaitCancelledByContext(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(e.ctx)
	_, _, ch := e.blockedWaiter(ctx)
	cancel()
	if o := outcome(t, ch); !errors.Is(o.err, context.Canceled) {
		t.Fatalf("cancel: %+v %v", o.res, o.err)
	}
}

func TestShutdownEndsWaits(t *testing.T) {
	e := newEnv(t)
	_, _, ch := e.blockedWaiter(e.ctx)
	e.svc.Shutdown()
	if o := outcome(t, ch); o.err != nil || o.res.Status != stick.NotYet {
		t.Fatalf("shutdown: %+v %v", o.res, o.err)
	}
}

func TestWaitWakesWhenClaimTimesOut(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	e.release(a, e.claim(a, room).Lease(), "for b")
	long := 5 * time.Minute
	ch := e.waitAsync(e.ctx, c, stick.WaitRequest{RoomID: room, MaxWait: &long})
	e.settle(2)
	e.clock.Advance(20 * time.Minute) // the claim timer fires at 20 min
	o := outcome(t, ch)
	if o.err != nil || o.res.Status != stick.TakeoverAvailable || o.res.Reason != string(stick.ReasonClaimTimeout) {
		t.Fatalf("after claim timeout: %+v %v", o.res, o.err)
	}
}

func TestWaitSeesOwnerDeathAtOnce(t *testing.T) {
	e := newEnv(t)
	owner, kill := liveAgent(t, "owner")
	c := agent("c")
	room := e.join(owner).RoomID
	e.join(c)
	e.claim(owner, room)
	ch := e.waitAsync(e.ctx, c, stick.WaitRequest{RoomID: room})
	e.settle(1)
	kill()
	o := outcome(t, ch)
	if o.err != nil || o.res.Status != stick.TakeoverAvailable || o.res.Reason != string(stick.ReasonOwnerGone) {
		t.Fatalf("after owner death: %+v %v", o.res, o.err)
	}
}

func TestWaitCursorReturnsWhenLogMoves(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.claim(a, room)
	// An old cursor returns at once with the current one.
	first, err := e.svc.WaitForTurn(e.ctx, b, stick.WaitRequest{RoomID: room, Cursor: "0"})
	if err != nil || first.Status != stick.NotYet || first.Cursor != "3" {
		t.Fatalf("old cursor: %+v %v", first, err)
	}
	ch := e.waitAsync(e.ctx, b, stick.WaitRequest{RoomID: room, Cursor: first.Cursor})
	e.settle(1)
	if _, err := e.svc.AppendNote(e.ctx, a, room, "progress: parser done"); err != nil {
		t.Fatal(err)
	}
	o := outcome(t, ch)
	if o.err != nil || o.res.Status != stick.NotYet || o.res.Cursor != "4" {
		t.Fatalf("cursor wait must return when the log moves: %+v %v", o.res, o.err)
	}
}

func TestConcurrentClaimsInOneProcess(t *testing.T) {
	e := newEnv(t)
	const n = 16
	callers := make([]stick.Caller, n)
	var room string
	for i := range callers {
		callers[i] = agent("agent-" + itoa(int64(i)))
		room = e.join(callers[i]).RoomID
	}
	results := make(chan stick.WaitResult, n)
	start := make(chan struct{})
	for _, c := range callers {
		go func() {
			<-start
			res, err := e.svc.WaitForTurn(e.ctx, c, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	close(start)
	winners := 0
	for range n {
		if r := <-results; r.Status == stick.YourTurn {
			winners++
		}
	}
	if st := e.state(room); winners != 1 || st.TurnID != 1 {
		t.Fatalf("%d winners, turn %d: exactly one claim may win", winners, st.TurnID)
	}
}

func TestBlockedWaiterGetsClosed(t *testing.T) {
	e := newEnv(t)
	room, _, ch := e.blockedWaiter(e.ctx)
	if _, err := e.svc.Close(e.ctx, agent("a"), room, "done for today", ""); err != nil {
		t.Fatal(err)
	}
	if o := outcome(t, ch); o.err != nil || o.res.Status != stick.Closed || o.res.RoomID != room {
		t.Fatalf("a waiter must learn the room closed: %+v %v", o.res, o.err)
	}
}

func TestFollowEventsBlocksUntilAnEventCommits(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	page, err := e.svc.FollowEvents(e.ctx, room, 0, 0)
	if err != nil || len(page.Events) != 1 {
		t.Fatalf("existing events return at once: %+v %v", page, err)
	}
	got := make(chan stick.EventPage, 1)
	go func() {
		p, err := e.svc.FollowEvents(e.ctx, room, page.Cursor, 0)
		if err != nil {
			t.Error(err)
		}
		got <- p
	}()
	select {
	case p := <-got:
		t.Fatalf("returned without a new event: %+v", p)
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := e.svc.AppendNote(e.ctx, a, room, "hello"); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if len(p.Events) != 1 || p.Events[0].Text != "hello" {
			t.Fatalf("follow: %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FollowEvents did not wake on a commit")
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	if _, err := e.svc.FollowEvents(ctx, room, 99, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled follow: %v", err)
	}
}
