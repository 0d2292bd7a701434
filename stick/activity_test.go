package stick_test

import (
	"context"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// A holder that works without calling heartbeat (posting notes, syncing,
// writing the document, changing the room, reading it) keeps its lease
// well past the original 45 minutes, and no rival may take over; once it
// stops calling, the lease runs out as before.
func TestHolderWorkRenewsLease(t *testing.T) {
	e := newEnv(t)
	holder, rival := agent("codex:1"), agent("claude-code:2")
	room := e.join(holder).RoomID
	e.join(rival)
	w := e.claim(holder, room)
	version := int64(0)
	work := []struct {
		name string
		do   func() error
	}{
		{"note", func() error { _, err := e.svc.AppendNote(e.ctx, holder, room, "still working"); return err }},
		{"sync", func() error { _, err := e.svc.Sync(e.ctx, holder, room, stick.SyncRequest{}); return err }},
		{"doc update", func() error {
			d, err := e.svc.UpdateDoc(e.ctx, holder, room, "# Plan\n\nstep", version)
			version = d.Version
			return err
		}},
		{"doc append", func() error { _, err := e.svc.AppendDoc(e.ctx, holder, room, "- found it", "Findings"); return err }},
		{"reorder", func() error {
			_, err := e.svc.ReorderMembers(e.ctx, holder, room, []string{holder.AgentID, rival.AgentID})
			return err
		}},
		{"policy", func() error {
			wait := 20 * time.Second
			_, err := e.svc.SetPolicy(e.ctx, holder, room, stick.PolicyUpdate{WaitMaxWait: &wait})
			return err
		}},
		{"join again", func() error { _, err := e.svc.JoinPath(e.ctx, holder, stick.JoinRequest{Path: e.repo}); return err }},
		{"read state", func() error { e.svc.Attend(e.ctx, holder, room); _, err := e.svc.RoomState(e.ctx, room); return err }},
		{"wait again", func() error {
			_, err := e.svc.WaitForTurn(e.ctx, holder, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
			return err
		}},
	}
	// Each kind of call alone carries the lease through two lease lengths.
	for _, step := range work {
		for range 6 {
			e.clock.Advance(15 * time.Minute)
			if err := step.do(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			st := e.state(room)
			if st.State != stick.StateOwned || st.Owner != holder.AgentID || st.TurnID != w.TurnID {
				t.Fatalf("after %s the holder must still own the stick: %+v", step.name, st)
			}
			_, err := e.svc.Takeover(e.ctx, rival, room, w.TurnID, "looks idle")
			wantCode(t, err, stick.CodeTakeoverNotAvailable)
		}
	}
	// The lease itself is the one granted: heartbeat with it still works.
	if _, err := e.svc.Heartbeat(e.ctx, holder, w.Lease()); err != nil {
		t.Fatal(err)
	}
	// An idle holder still goes stale.
	e.clock.Advance(46 * time.Minute)
	if st := e.state(room); st.State != stick.StateStaleOwner {
		t.Fatalf("idle holder: %s", st.State)
	}
	if _, err := e.svc.Takeover(e.ctx, rival, room, w.TurnID, "owner lease expired"); err != nil {
		t.Fatal(err)
	}
}

// Calls by other members, and reads by anyone but the holder, renew nothing.
func TestOthersDoNotRenewTheHoldersLease(t *testing.T) {
	e := newEnv(t)
	holder, other := agent("a"), agent("b")
	room := e.join(holder).RoomID
	e.join(other)
	w := e.claim(holder, room)
	for range 4 {
		e.clock.Advance(15 * time.Minute)
		e.note(other, room, "hello")
		e.svc.Attend(e.ctx, other, room)
	}
	if st := e.state(room); st.State != stick.StateStaleOwner || !st.LeaseExpires.Equal(*w.LeaseExpiresAt) {
		t.Fatalf("others' calls must not renew the holder's lease: %+v", st)
	}
}

// KeepAlive renews a holder's lease between its calls, without refreshing
// its presence, until one presence TTL after its last call; the lease then
// lapses, and KeepAlive ends once the lease is taken over.
func TestKeepAliveBoundedByPresence(t *testing.T) {
	e := newEnv(t)
	holder, _ := liveAgent(t, "codex:1")
	rival := agent("claude-code:2")
	room := e.join(holder).RoomID
	e.join(rival)
	lease, hb, presence := time.Minute, 20*time.Second, 5*time.Minute
	if _, err := e.svc.SetPolicy(e.ctx, holder, room, stick.PolicyUpdate{OwnerLeaseTTL: &lease, HeartbeatInterval: &hb, PresenceTTL: &presence}); err != nil {
		t.Fatal(err)
	}
	w := e.claim(holder, room)
	lastCall := e.clock.Now()
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.svc.KeepAlive(ctx, holder, w.Lease()) }()
	armed := func() {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for e.clock.Timers() != 1 {
			if time.Now().After(deadline) {
				t.Fatal("KeepAlive did not arm its timer")
			}
			time.Sleep(time.Millisecond)
		}
	}
	for e.clock.Now().Add(hb).Before(lastCall.Add(presence)) {
		armed()
		e.clock.Advance(hb)
		armed()
		st := e.state(room)
		if st.State != stick.StateOwned {
			t.Fatalf("at +%s the kept lease must hold: %+v", e.clock.Now().Sub(lastCall), st)
		}
		if !st.LeaseExpires.After(e.clock.Now()) || st.LeaseExpires.After(lastCall.Add(presence)) {
			t.Fatalf("at +%s the lease runs to %s, past the presence bound", e.clock.Now().Sub(lastCall), st.LeaseExpires)
		}
		for _, m := range st.Members {
			if m.AgentID == holder.AgentID && !m.LastSeenAt.Equal(lastCall) {
				t.Fatalf("KeepAlive must not refresh presence: last seen %s", m.LastSeenAt)
			}
		}
	}
	e.clock.Advance(hb)
	armed()
	if st := e.state(room); st.State != stick.StateStaleOwner {
		t.Fatalf("an idle holder's lease must lapse one presence TTL after its last call: %+v", st)
	}
	if _, err := e.svc.Takeover(e.ctx, rival, room, w.TurnID, "owner idle"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(hb)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KeepAlive must end when the lease is taken over")
	}
}
