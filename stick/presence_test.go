package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// TestPresenceGrain: back-to-back calls by one member do not rewrite its
// last-seen time, but a call one grain later does (a second, or a tenth of
// a short presence TTL), so presence stays accurate to far below its TTL.
func TestPresenceGrain(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	seen := func() time.Time {
		t.Helper()
		for _, m := range e.state(room).Members {
			if m.AgentID == a.AgentID {
				return m.LastSeenAt
			}
		}
		t.Fatal("member a missing")
		return time.Time{}
	}
	joined := seen()
	w := e.claim(a, room)
	heartbeat := func() {
		t.Helper()
		if _, err := e.svc.Heartbeat(e.ctx, a, w.Lease()); err != nil {
			t.Fatal(err)
		}
	}

	e.clock.Advance(900 * time.Millisecond)
	heartbeat()
	if got := seen(); !got.Equal(joined) {
		t.Fatalf("last seen moved to %v within a second of %v", got, joined)
	}
	e.clock.Advance(200 * time.Millisecond)
	heartbeat()
	if got, want := seen(), joined.Add(1100*time.Millisecond); !got.Equal(want) {
		t.Fatalf("last seen %v after 1.1 s, want %v", got, want)
	}

	// A short presence TTL gives a finer grain: a tenth of it.
	ttl, hb := 2*time.Second, 500*time.Millisecond
	if _, err := e.svc.SetPolicy(e.ctx, a, room, stick.PolicyUpdate{PresenceTTL: &ttl, HeartbeatInterval: &hb}); err != nil {
		t.Fatal(err)
	}
	base := seen()
	e.clock.Advance(150 * time.Millisecond)
	heartbeat()
	if got := seen(); !got.Equal(base) {
		t.Fatalf("last seen moved after 150 ms with a 200 ms grain")
	}
	e.clock.Advance(100 * time.Millisecond)
	heartbeat()
	if got, want := seen(), base.Add(250*time.Millisecond); !got.Equal(want) {
		t.Fatalf("last seen %v, want %v", got, want)
	}
}
