package mcpserver_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// timers waits until the manual clock has n timers armed: the kept lease's
// renewal timer, once it has renewed and gone back to sleep.
func (w *world) timers(n int) {
	w.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for w.clock.Timers() != n {
		if time.Now().After(deadline) {
			w.t.Fatalf("want %d armed timers, have %d", n, w.clock.Timers())
		}
		time.Sleep(time.Millisecond)
	}
}

// stick mcp keeps the lease of a stick its connection holds while the
// harness lives, past the lease TTL, without the model calling heartbeat;
// the holder's reads count as calls; once the holder has been idle for the
// presence TTL the lease lapses and the room shows stale_owner. Releasing
// the stick, or closing the connection, stops the renewal.
func TestServerKeepsWorkingHoldersLease(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("codex", nil)
	rival := w.connect("claude-code", nil)
	room := ok(t, cs, "join_path", obj{"context_path": w.repo}).str("room_id")
	ok(t, rival, "join_path", obj{"context_path": w.repo})
	const leaseTTL, hb, presence = time.Minute, 20 * time.Second, 5 * time.Minute
	ok(t, cs, "set_room_policy", obj{"room_id": room, "owner_lease_ttl_ms": leaseTTL.Milliseconds(),
		"heartbeat_interval_ms": hb.Milliseconds(), "presence_ttl_ms": presence.Milliseconds()})
	turn := ok(t, cs, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if turn.str("status") != "your_turn" {
		t.Fatalf("claim: %s", turn.text)
	}
	state := func() stick.RoomStatus {
		t.Helper()
		st, err := w.svc.RoomState(w.ctx, room)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// run advances the clock one heartbeat at a time for d, the lease kept.
	run := func(d time.Duration) {
		t.Helper()
		for end := w.clock.Now().Add(d); w.clock.Now().Before(end); {
			w.timers(1)
			w.clock.Advance(hb)
			w.timers(1)
			if st := state(); st.State != stick.StateOwned {
				t.Fatalf("the kept lease must hold: %s, lease until %s, now %s", st.State, st.LeaseExpires, w.clock.Now())
			}
		}
	}
	run(4 * time.Minute)
	// A read by the holder is a call: the presence bound moves with it.
	read := w.clock.Now()
	ok(t, cs, "get_room_state", obj{"room_id": room})
	run(4*time.Minute + 40*time.Second)
	// Idle for the presence TTL since that read: the lease lapses.
	w.clock.Advance(hb)
	w.timers(1)
	if st := state(); st.State != stick.StateStaleOwner || !st.LeaseExpires.Equal(read.Add(presence)) {
		t.Fatalf("an idle holder must go stale one presence TTL after its last call: %s, lease until %s", st.State, st.LeaseExpires)
	}

	// A new turn is kept again; releasing it stops the renewal.
	ok(t, cs, "heartbeat", lease(turn))
	ok(t, cs, "release_stick", with(lease(turn), "handoff", handoff("done")))
	w.timers(0)
	next := ok(t, rival, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if next.str("status") != "your_turn" {
		t.Fatalf("rival claim: %s", next.text)
	}
	w.timers(1)
	// Closing the connection stops it too.
	if err := rival.Close(); err != nil {
		t.Fatal(err)
	}
	w.timers(0)
}
