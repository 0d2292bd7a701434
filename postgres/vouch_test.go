package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// A mark a hub vouches with: ended as gone, its lock is let go and its row
// kept, so the process is gone to every judge; ended otherwise, it is
// taken away, and the process is judged by its leases again; a store
// that closes takes away the marks not ended, whatever procid says of
// their processes, so a hub that stops proves nothing of its members.
func TestVouch(t *testing.T) {
	u := pgtest.URL(t)
	judge := openStore(t, u)
	live := judge.Liveness(nil)
	now := time.Now().UTC().Truncate(time.Millisecond)
	gone := stick.Process{HostID: "hub:host-v", BootID: "boot-v", PID: 101, StartedAt: now}
	moved := stick.Process{HostID: "hub:host-v", BootID: "boot-v", PID: 102, StartedAt: now}
	closed := stick.Process{HostID: "hub:host-v", BootID: "boot-v", PID: 103, StartedAt: now}

	hub := openStore(t, u)
	var ends []func(bool)
	for _, p := range []stick.Process{gone, moved, closed} {
		end, err := hub.Vouch(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, end)
		if got := live.Check(p); got != procid.Alive {
			t.Fatalf("%s vouched for: %v; want alive", p, got)
		}
	}
	ends[0](true)
	ends[0](false)
	if got := live.Check(gone); got != procid.Gone {
		t.Fatalf("a mark let go as proof: %v; want gone", got)
	}
	if n := marksOf(t, u, gone); n != 1 {
		t.Fatalf("rows of a mark let go as proof: %d; want 1", n)
	}
	ends[1](false)
	if got := live.Check(moved); got != procid.Unknown {
		t.Fatalf("a mark taken away: %v; want unknown", got)
	}
	if n := marksOf(t, u, moved); n != 0 {
		t.Fatalf("rows of a mark taken away: %d", n)
	}
	if err := hub.Close(); err != nil {
		t.Fatal(err)
	}
	if got := live.Check(closed); got != procid.Unknown {
		t.Fatalf("a mark of a store that closed: %v; want unknown (its leases decide)", got)
	}
	if n := marksOf(t, u, closed); n != 0 {
		t.Fatalf("rows of the marks of a store that closed: %d", n)
	}
}
