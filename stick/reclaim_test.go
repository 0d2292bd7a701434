package stick_test

import (
	"encoding/json"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestReclaimAfterRestart: a member that comes back from a new process with
// its reclaim token is the same member: agent id, place in the sequence
// and sync cursor, and a held turn follows it once the old process is gone.
func TestReclaimAfterRestart(t *testing.T) {
	e := newEnv(t)
	first, kill := liveAgent(t, "codex:0ld111")
	b := agent("b")
	j := e.join(first)
	room := j.RoomID
	e.join(b)
	if _, err := e.svc.Post(e.ctx, b, room, stick.Note{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	synced, err := e.svc.Sync(e.ctx, first, room, stick.SyncRequest{})
	if err != nil || len(synced.Received) == 0 {
		t.Fatalf("sync: %+v %v", synced, err)
	}
	l := e.claim(first, room).Lease()
	kill()
	if st := e.state(room).State; st != stick.StateOwnerGone {
		t.Fatalf("the holder's process died: %s", st)
	}

	restarted, _ := liveAgent(t, "codex:n3w222") // a new process derives a new id
	back, err := e.svc.JoinPath(e.ctx, restarted, stick.JoinRequest{Path: e.repo, ReclaimToken: j.ReclaimToken})
	if err != nil || back.AgentID != first.AgentID || !back.Reclaimed || back.NewMember || back.ReclaimToken != j.ReclaimToken {
		t.Fatalf("reclaim: %+v %v", back, err)
	}
	if back.Room.State != stick.StateOwned || back.Room.Owner != first.AgentID || len(back.Room.Members) != 2 ||
		back.Room.Members[0].AgentID != first.AgentID {
		t.Fatalf("the turn and the place in the sequence follow the member: %+v", back.Room)
	}
	restarted.AgentID = back.AgentID
	if _, err := e.svc.Heartbeat(e.ctx, restarted, l); err != nil {
		t.Fatalf("the reclaimed holder keeps its lease: %v", err)
	}
	again, err := e.svc.Sync(e.ctx, restarted, room, stick.SyncRequest{})
	if err != nil || again.Cursor < synced.Cursor {
		t.Fatalf("the cursor survives: %+v %v", again, err)
	}
	for _, ev := range again.Received {
		if ev.Seq <= synced.Cursor {
			t.Fatalf("nothing already given comes again: %+v", again.Received)
		}
	}
	page, _ := e.svc.RoomEvents(e.ctx, room, 0, 0)
	var data map[string]any
	last := page.Events[len(page.Events)-1]
	if last.Type != stick.EventJoin || json.Unmarshal(last.Data, &data) != nil || data["reclaimed"] != true {
		t.Fatalf("a reclaim is logged as a join: %+v", last)
	}
}

// TestNameReserved: an agent id override cannot take over a member's name
// without its token, and a token works only for its own member and room.
func TestNameReserved(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	j, err := e.svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: e.repo, AgentIDOverride: "reviewer"})
	if err != nil {
		t.Fatal(err)
	}
	before := e.state(j.RoomID).LastEventSeq
	_, err = e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, AgentIDOverride: "reviewer"})
	if se := wantCode(t, err, stick.CodeAgentIDInUse); se.Details["agent_id"] != "reviewer" {
		t.Fatalf("agent_id_in_use names the id: %+v", se)
	}
	_, err = e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, ReclaimToken: "rt_wrong"})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "reclaim_token" {
		t.Fatalf("a wrong token names the field: %+v", se)
	}
	if e.state(j.RoomID).LastEventSeq != before {
		t.Fatal("a refused join must write nothing")
	}
	e.join(agent("b"))
	before = e.state(j.RoomID).LastEventSeq
	_, err = e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, AgentIDOverride: "b", ReclaimToken: j.ReclaimToken})
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: mkRepo(t), ReclaimToken: j.ReclaimToken})
	wantCode(t, err, stick.CodeInvalidArgument)
	if e.state(j.RoomID).LastEventSeq != before || len(e.state(j.RoomID).Members) != 2 {
		t.Fatal("a refused join must write nothing")
	}
	if rejoin, err := e.svc.JoinPath(e.ctx, agent("b"), stick.JoinRequest{Path: e.repo}); err != nil || rejoin.ReclaimToken != "" {
		t.Fatalf("a derived identity rejoins without a token, and a caller with no process is not shown it: %+v %v", rejoin, err)
	}
	if err := e.svc.Leave(e.ctx, a, j.RoomID); err == nil {
		t.Fatal("a is not the member; reviewer is")
	}
	reviewer := agent("reviewer")
	if err := e.svc.Leave(e.ctx, reviewer, j.RoomID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, ReclaimToken: j.ReclaimToken})
	wantCode(t, err, stick.CodeInvalidArgument)
	fresh, err := e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, AgentIDOverride: "reviewer"})
	if err != nil || fresh.ReclaimToken == j.ReclaimToken {
		t.Fatalf("after leaving, the name is free and gets a new token: %+v %v", fresh, err)
	}
}

// TestNameReservedWithoutToken: a member written without a token (by a
// stick from before tokens, still running) keeps its name: only its own
// process may join as it, and that join gives it a token.
func TestNameReservedWithoutToken(t *testing.T) {
	e := newEnv(t)
	old, _ := liveAgent(t, "claude-code:aaaaaa")
	j := e.join(old)
	err := e.store.Update(e.ctx, func(tx stick.Tx) error {
		ms, err := tx.Members(j.RoomID)
		if err != nil {
			return err
		}
		ms[0].ReclaimToken = ""
		return tx.SaveMember(ms[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, AgentIDOverride: old.AgentID})
	wantCode(t, err, stick.CodeAgentIDInUse)
	again, err := e.svc.JoinPath(e.ctx, old, stick.JoinRequest{Path: e.repo, AgentIDOverride: old.AgentID})
	if err != nil || again.ReclaimToken == "" || again.ReclaimToken == j.ReclaimToken {
		t.Fatalf("its own process rejoins and gets a new token: %+v %v", again, err)
	}
}
