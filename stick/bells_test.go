package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// TestShortClaimTimeoutReachesWaitersItDidNotRing: a release rings only the
// member it reserves the stick for, so the other waiters learn of the
// reservation (and its claim deadline) from their periodic refresh. However
// long they have waited in a quiet room, that refresh is never slower than
// a quarter of the claim TTL: a waiter is offered takeover soon after a
// short claim deadline passes.
func TestShortClaimTimeoutReachesWaitersItDidNotRing(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	claim := 400 * time.Millisecond
	if _, err := e.svc.SetPolicy(e.ctx, a, room, stick.PolicyUpdate{ClaimTTL: &claim}); err != nil {
		t.Fatal(err)
	}
	l := e.claim(a, room).Lease()
	long := 10 * time.Minute
	ch := e.waitAsync(e.ctx, c, stick.WaitRequest{RoomID: room, MaxWait: &long})
	e.settle(4) // max wait, a's lease, presence, refresh
	armed := e.clock.Timers()
	// step advances the clock and waits until c has looked and armed its
	// timers again (or returned).
	step := func(d time.Duration) (waitOutcome, bool) {
		t.Helper()
		e.clock.Advance(d)
		deadline := time.Now().Add(10 * time.Second)
		for e.clock.Timers() < armed {
			select {
			case o := <-ch:
				return o, true
			default:
			}
			if time.Now().After(deadline) {
				t.Fatal("the waiter never armed its timers again")
			}
			time.Sleep(time.Millisecond)
		}
		return waitOutcome{}, false
	}
	// A quiet while: nothing moves, c's refresh slows down.
	for range 40 {
		if o, done := step(100 * time.Millisecond); done {
			t.Fatalf("c returned while a held the stick: %+v", o)
		}
	}
	e.release(a, l, "for b, who never claims")
	const tick = 25 * time.Millisecond
	for elapsed := tick; elapsed <= 3*claim; elapsed += tick {
		o, done := step(tick)
		if !done {
			continue
		}
		if o.err != nil || o.res.Status != stick.TakeoverAvailable || o.res.Reason != string(stick.ReasonClaimTimeout) {
			t.Fatalf("c: %+v %v, want takeover_available (claim_timeout)", o.res, o.err)
		}
		if limit := claim + claim/4 + tick; elapsed > limit {
			t.Fatalf("c was offered takeover %v after the release; the claim TTL is %v, so at most %v", elapsed, claim, limit)
		}
		return
	}
	t.Fatalf("c was not offered takeover within %v of the release", 3*claim)
}
