package stick_test

import (
	"testing"

	"github.com/stickhq/stick/stick"
)

// A caller whose agent id the user chose (a command's --agent) naming a
// member run by a program acts as it only with the member's reclaim token;
// members who are people stay open to it.
func TestChosenIDNeedsProgramMembersToken(t *testing.T) {
	e := newEnv(t)
	harness, _ := liveAgent(t, "codex:9b22")
	joined := e.join(harness)
	room, token := joined.RoomID, joined.ReclaimToken
	bob := stick.Caller{AgentID: "human:bob", Kind: stick.KindOneShot}
	e.join(bob)
	l := e.claim(bob, room).Lease()
	e.release(bob, l, "over to codex") // reserved for codex:9b22

	impostor := stick.Caller{AgentID: "codex:9b22", Kind: stick.KindOneShot, Chosen: true}
	refused := func(what string, err error) {
		t.Helper()
		se := wantCode(t, err, stick.CodeAgentIDInUse)
		if se.Details["agent_id"] != "codex:9b22" || se.Hint == "" {
			t.Errorf("%s: refusal must name the member and say what to do: %+v", what, se)
		}
	}
	_, err := e.svc.WaitForTurn(e.ctx, impostor, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
	refused("wait_for_turn", err)
	_, err = e.svc.Post(e.ctx, impostor, room, stick.Note{Text: "posted in codex's name"})
	refused("post", err)
	_, err = e.svc.JoinPath(e.ctx, impostor, stick.JoinRequest{Path: e.repo})
	refused("join", err)
	_, err = e.svc.Sync(e.ctx, impostor, room, stick.SyncRequest{})
	refused("sync", err)
	refused("leave", e.svc.Leave(e.ctx, impostor, room))
	wrong := impostor
	wrong.ReclaimToken = "rt_not_its_token"
	_, err = e.svc.Post(e.ctx, wrong, room, stick.Note{Text: "posted in codex's name"})
	refused("post with another token", err)
	if st := e.state(room); st.State != stick.StateReserved || st.ReservedFor != "codex:9b22" {
		t.Fatalf("the refused calls changed the room: %+v", st)
	}
	page, _ := e.svc.RoomEvents(e.ctx, room, 0, 0)
	for _, ev := range page.Events {
		if ev.Type == stick.EventNote {
			t.Fatalf("a refused note was posted: %+v", ev)
		}
	}

	// A derived id (not chosen) is the frontend's own: unchanged.
	if _, err := e.svc.Post(e.ctx, stick.Caller{AgentID: "codex:9b22", Kind: stick.KindOneShot}, room, stick.Note{Text: "from codex's shell"}); err != nil {
		t.Fatalf("derived id: %v", err)
	}
	// With its token the chosen id acts as the member; the member stays a program.
	proven := impostor
	proven.ReclaimToken = token
	if _, err := e.svc.Post(e.ctx, proven, room, stick.Note{Text: "with the token"}); err != nil {
		t.Fatalf("with the member's token: %v", err)
	}
	w, err := e.svc.WaitForTurn(e.ctx, proven, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
	if err != nil || w.Status != stick.YourTurn {
		t.Fatalf("with the member's token: want your_turn, got %+v %v", w, err)
	}
	_, err = e.svc.Post(e.ctx, impostor, room, stick.Note{Text: "after a grant by token"})
	refused("post after a grant by token", err)

	// People stay open to a chosen id, as at one terminal.
	if _, err := e.svc.Post(e.ctx, stick.Caller{AgentID: "human:bob", Kind: stick.KindOneShot, Chosen: true}, room, stick.Note{Text: "bob again"}); err != nil {
		t.Fatalf("a person's id chosen by --agent: %v", err)
	}
}
