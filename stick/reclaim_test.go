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

// TestReclaimIfGone: a recorded token makes a new process its member again
// only when the member's recorded process is proven gone: never a live
// member, never one whose liveness is unknown, never for a caller that is
// a member as itself already; the first gone one wins, and a held turn
// follows it.
func TestReclaimIfGone(t *testing.T) {
	e := newEnv(t)
	first, kill := liveAgent(t, "codex:0ld111")
	j := e.join(first)
	room := j.RoomID
	unknown := e.join(agent("codex:n0fact")) // no process facts: liveness unknown
	if _, err := e.svc.Post(e.ctx, agent("codex:n0fact"), room, stick.Note{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	synced, err := e.svc.Sync(e.ctx, first, room, stick.SyncRequest{})
	if err != nil {
		t.Fatal(err)
	}
	l := e.claim(first, room).Lease()
	tokens := []string{unknown.ReclaimToken, j.ReclaimToken}
	joinAs := func(c stick.Caller, req stick.JoinRequest) stick.JoinResult {
		t.Helper()
		req.Path = e.repo
		res, err := e.svc.JoinPath(e.ctx, c, req)
		if err != nil {
			t.Fatalf("join %s: %v", c.AgentID, err)
		}
		return res
	}

	live, _ := liveAgent(t, "codex:l1ve11")
	if res := joinAs(live, stick.JoinRequest{ReclaimIfGone: tokens}); res.AgentID != live.AgentID || res.FoundAgain || res.Reclaimed || res.ReclaimToken == j.ReclaimToken {
		t.Fatalf("a live member was taken over: %+v", res)
	}
	kill()
	if res := joinAs(live, stick.JoinRequest{ReclaimIfGone: tokens}); res.AgentID != live.AgentID || res.FoundAgain {
		t.Fatalf("a member of the room stays itself: %+v", res)
	}
	oneShot := stick.Caller{AgentID: "human:x", Kind: stick.KindOneShot}
	if res := joinAs(oneShot, stick.JoinRequest{ReclaimIfGone: tokens}); res.AgentID != oneShot.AgentID || res.FoundAgain {
		t.Fatalf("a caller without a process took a member: %+v", res)
	}

	restarted, _ := liveAgent(t, "codex:n3w222")
	back := joinAs(restarted, stick.JoinRequest{ReclaimIfGone: tokens})
	if back.AgentID != first.AgentID || !back.FoundAgain || !back.Reclaimed || back.NewMember || back.ReclaimToken != j.ReclaimToken {
		t.Fatalf("the gone member is found again (the unknown one skipped): %+v", back)
	}
	if back.Room.State != stick.StateOwned || back.Room.Owner != first.AgentID {
		t.Fatalf("the turn follows the member: %+v", back.Room)
	}
	restarted.AgentID = back.AgentID
	if _, err := e.svc.Heartbeat(e.ctx, restarted, l); err != nil {
		t.Fatalf("the found member keeps its lease: %v", err)
	}
	if again, err := e.svc.Sync(e.ctx, restarted, room, stick.SyncRequest{}); err != nil || again.Cursor < synced.Cursor {
		t.Fatalf("the cursor survives: %+v %v", again, err)
	}
	// Now live in the new process, it is taken by no one else.
	third, _ := liveAgent(t, "codex:thr333")
	if res := joinAs(third, stick.JoinRequest{ReclaimIfGone: tokens}); res.AgentID != third.AgentID || res.FoundAgain {
		t.Fatalf("the member, live again, was taken over: %+v", res)
	}

	// An override naming a gone member: its recorded token proves the name.
	gone, killGone := liveAgent(t, "codex:g0ne44")
	gj := e.join(gone)
	killGone()
	fresh, _ := liveAgent(t, "codex:fr3sh5")
	_, err = e.svc.JoinPath(e.ctx, fresh, stick.JoinRequest{Path: e.repo, AgentIDOverride: gone.AgentID, ReclaimIfGone: []string{j.ReclaimToken}})
	wantCode(t, err, stick.CodeAgentIDInUse)
	if res := joinAs(fresh, stick.JoinRequest{AgentIDOverride: gone.AgentID, ReclaimIfGone: []string{gj.ReclaimToken}}); res.AgentID != gone.AgentID || !res.FoundAgain {
		t.Fatalf("override with the recorded token of a gone member: %+v", res)
	}
}
