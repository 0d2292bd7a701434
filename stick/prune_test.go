package stick_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// A room is abandoned when nobody could act in it any more and its path is
// gone or nobody called for the idle limit; pruning closes exactly those,
// keeping their log, and never a room a live member or a recent caller
// could come back to.
func TestPruneAbandonedRooms(t *testing.T) {
	e := newEnv(t)
	// gone: its directory is deleted and its only member's process killed.
	gone := mkRepo(t)
	ghost, kill := liveAgent(t, "ghost")
	g, err := e.svc.JoinPath(e.ctx, ghost, stick.JoinRequest{Path: gone})
	if err != nil {
		t.Fatal(err)
	}
	e.claim(ghost, g.RoomID)
	kill()
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	// alive: its directory is deleted, but its member's process runs.
	aliveDir := mkRepo(t)
	live, _ := liveAgent(t, "live")
	a, err := e.svc.JoinPath(e.ctx, live, stick.JoinRequest{Path: aliveDir})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(aliveDir); err != nil {
		t.Fatal(err)
	}
	// quiet: the path exists; its member has no process facts.
	q := e.join(agent("quiet"))

	list := func(idle time.Duration) map[string]stick.AbandonedRoom {
		t.Helper()
		rooms, err := e.svc.AbandonedRooms(e.ctx, idle)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]stick.AbandonedRoom{}
		for _, r := range rooms {
			out[r.RoomID] = r
		}
		return out
	}
	// At once only the room whose path and process are both gone.
	if got := list(0); len(got) != 1 || got[g.RoomID].Reason != stick.AbandonPathGone || got[g.RoomID].State != stick.StateOwnerGone {
		t.Fatalf("abandoned right away: %+v", got)
	}
	// A recent caller without process facts keeps its room through the
	// presence TTL; after the idle limit its room is abandoned too.
	e.clock.Advance(5 * time.Hour)
	if got := list(0); len(got) != 1 {
		t.Fatalf("after 5 hours: %+v", got)
	}
	if got := list(4 * time.Hour); len(got) != 2 || got[q.RoomID].Reason != stick.AbandonIdle {
		t.Fatalf("with a 4h idle limit: %+v", got)
	}
	if _, ok := list(time.Hour)[a.RoomID]; ok {
		t.Fatal("a room whose member's process runs was listed")
	}
	if _, err := e.svc.AbandonedRooms(e.ctx, -time.Hour); err == nil {
		t.Fatal("a negative idle limit was accepted")
	} else {
		wantCode(t, err, stick.CodeInvalidArgument)
	}

	pruned, err := e.svc.PruneRooms(e.ctx, agent("human:ops"), 0)
	if err != nil || len(pruned) != 1 || pruned[0].RoomID != g.RoomID || pruned[0].EventSeq == 0 {
		t.Fatalf("prune: %+v %v", pruned, err)
	}
	st := e.state(g.RoomID)
	if st.State != stick.StateClosed || st.Owner != "" {
		t.Fatalf("pruned room: %+v", st)
	}
	page, err := e.svc.RoomEvents(e.ctx, g.RoomID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := page.Events[len(page.Events)-1]
	if last.Type != stick.EventClose || last.From != "human:ops" || !strings.Contains(last.Reason, "abandoned: its path no longer exists") ||
		!strings.Contains(page.Events[0].From, "ghost") {
		t.Fatalf("the log after a prune: %+v", page.Events)
	}
	for _, id := range []string{a.RoomID, q.RoomID} {
		if s := e.state(id); s.State == stick.StateClosed {
			t.Fatalf("room %s was closed", id)
		}
	}
	if again, err := e.svc.PruneRooms(e.ctx, agent("human:ops"), 0); err != nil || len(again) != 0 {
		t.Fatalf("a second prune: %+v %v", again, err)
	}
	// The idle limit, from a caller who is no member, closes the quiet room.
	e.clock.Advance(stick.DefaultAbandonAfter)
	pruned, err = e.svc.PruneRooms(e.ctx, agent("human:ops"), 0)
	if err != nil || len(pruned) != 1 || pruned[0].RoomID != q.RoomID || !strings.HasPrefix(pruned[0].Describe(e.clock.Now()), "no member has called for 30 days") {
		t.Fatalf("prune after 30 days: %+v %v", pruned, err)
	}
}
