package stick_test

import (
	"context"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// A heartbeat renews the lease to a full lease length from now, but one
// within a second of the last renewal changes nothing: a holder that
// heartbeats in a loop keeps the lease it has.
func TestHeartbeatWithinASecondKeepsTheLease(t *testing.T) {
	e := newEnv(t)
	holder := agent("codex:1")
	room := e.join(holder).RoomID
	w := e.claim(holder, room)
	granted := e.clock.Now().Add(stick.DefaultPolicy.OwnerLeaseTTL)
	e.clock.Advance(500 * time.Millisecond)
	hb, err := e.svc.Heartbeat(e.ctx, holder, w.Lease())
	if err != nil {
		t.Fatal(err)
	}
	if !hb.LeaseExpiresAt.Equal(granted) {
		t.Errorf("heartbeat 0.5 s after the grant: lease ends %v, want the granted %v", hb.LeaseExpiresAt, granted)
	}
	e.clock.Advance(1500 * time.Millisecond)
	hb, err = e.svc.Heartbeat(e.ctx, holder, w.Lease())
	if err != nil {
		t.Fatal(err)
	}
	if want := e.clock.Now().Add(stick.DefaultPolicy.OwnerLeaseTTL); !hb.LeaseExpiresAt.Equal(want) {
		t.Errorf("heartbeat 2 s after the grant: lease ends %v, want %v", hb.LeaseExpiresAt, want)
	}
	if st := e.state(room); st.LeaseExpires == nil || !st.LeaseExpires.Equal(hb.LeaseExpiresAt) {
		t.Errorf("room state shows lease end %v, want %v", st.LeaseExpires, hb.LeaseExpiresAt)
	}
}

// Calls that have nothing to write do not queue behind a writer: a
// refused heartbeat, a heartbeat within its grain, and a wait that finds
// nothing to claim all answer while another transaction holds the write
// lock.
func TestCallsWithNothingToWriteDoNotWaitForWriters(t *testing.T) {
	e := newEnv(t)
	holder, other := agent("codex:1"), agent("claude-code:2")
	room := e.join(holder).RoomID
	e.join(other)
	old := e.claim(holder, room)
	e.release(holder, old.Lease(), "first turn done")
	w := e.claim(other, room)

	held, free := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- e.store.Update(e.ctx, func(stick.Tx) error {
			close(held)
			<-free
			return nil
		})
	}()
	<-held
	defer func() {
		close(free)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()

	_, err := e.svc.Heartbeat(ctx, holder, old.Lease())
	wantCode(t, err, stick.CodeTurnMismatch)
	if _, err := e.svc.Heartbeat(ctx, other, w.Lease()); err != nil {
		t.Errorf("heartbeat of the holder within its grain: %v", err)
	}
	res, err := e.svc.WaitForTurn(ctx, holder, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
	if err != nil || res.Status != stick.NotYet {
		t.Errorf("wait of a member whose presence is fresh: %+v, %v; want not_yet at once", res, err)
	}
}

// KeepAlive started right after a claim, as stick mcp starts it, leaves the
// fresh lease as it was granted instead of rewriting it a moment later;
// its renewals come a heartbeat interval on.
func TestKeepAliveLeavesAFreshLease(t *testing.T) {
	e := newEnv(t)
	holder, _ := liveAgent(t, "codex:1")
	room := e.join(holder).RoomID
	w := e.claim(holder, room)
	granted := e.clock.Now().Add(stick.DefaultPolicy.OwnerLeaseTTL)
	e.clock.Advance(500 * time.Millisecond)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- e.svc.KeepAlive(ctx, holder, w.Lease()) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for e.clock.Timers() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("KeepAlive did not arm its timer")
		}
		time.Sleep(time.Millisecond)
	}
	if st := e.state(room); st.LeaseExpires == nil || !st.LeaseExpires.Equal(granted) {
		t.Fatalf("lease ends %v after KeepAlive's first look; want the granted %v", st.LeaseExpires, granted)
	}
	e.clock.Advance(stick.DefaultPolicy.HeartbeatInterval)
	want := e.clock.Now().Add(stick.DefaultPolicy.OwnerLeaseTTL)
	for st := e.state(room); st.LeaseExpires == nil || !st.LeaseExpires.Equal(want); st = e.state(room) {
		if time.Now().After(deadline) {
			t.Fatalf("lease ends %v a heartbeat interval on; want %v", st.LeaseExpires, want)
		}
		time.Sleep(time.Millisecond)
	}
}
