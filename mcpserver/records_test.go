package mcpserver_test

import (
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
)

// A member's record lives as long as the member: leave_path removes it,
// and a later join of the harness in the workspace drops the records of
// members that left another way or whose room was closed.
func TestRecordsFollowMembers(t *testing.T) {
	w := newWorld(t, self(t))
	data := t.TempDir()
	srv, err := mcpserver.New(mcpserver.Config{Service: w.svc, Harness: self(t), DataDir: data, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	records := identity.NewRecords(data)
	agents := func() []string {
		t.Helper()
		recs, err := records.Find("claude-code", w.repo)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range recs {
			ids = append(ids, r.AgentID)
		}
		return ids
	}
	a := connectTo(t, srv, "claude-code")
	j := ok(t, a, "join_path", obj{"context_path": w.repo})
	room, id := j.str("room_id"), j.str("agent_id")
	if got := agents(); len(got) != 1 || got[0] != id {
		t.Fatalf("the join is recorded: %v", got)
	}
	ok(t, a, "leave_path", obj{"room_id": room})
	if got := agents(); len(got) != 0 {
		t.Fatalf("leave_path removes the record: %v", got)
	}

	keeper := connectTo(t, srv, "claude-code")
	ok(t, keeper, "join_path", obj{"context_path": w.repo, "agent_id_override": "keeper"})
	ok(t, a, "join_path", obj{"context_path": w.repo})
	if err := w.svc.Leave(w.ctx, stick.Caller{AgentID: "keeper", Kind: stick.KindOneShot}, room); err != nil {
		t.Fatal(err)
	}
	ok(t, a, "join_path", obj{"context_path": w.repo})
	if got := agents(); len(got) != 1 || got[0] != id {
		t.Fatalf("a member that left another way keeps no record: %v", got)
	}

	ok(t, a, "close_room", obj{"room_id": room})
	next := ok(t, a, "join_path", obj{"context_path": w.repo})
	recs, _ := records.Find("claude-code", w.repo)
	if next.str("room_id") == room || len(recs) != 1 || recs[0].RoomID != next.str("room_id") {
		t.Fatalf("the closed room's record is dropped: %+v", recs)
	}
}
