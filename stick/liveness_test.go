package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func TestOwnerProcessGoneOpensTakeoverAtOnce(t *testing.T) {
	e := newEnv(t)
	claude, kill := liveAgent(t, "claude")
	codex := agent("codex")
	room := e.join(claude).RoomID
	e.join(codex)
	l := e.claim(claude, room).Lease()
	if st := e.state(room); st.State != stick.StateOwned {
		t.Fatalf("live owner: %+v", st)
	}
	kill()
	st := e.state(room)
	if st.State != stick.StateOwnerGone || st.Takeover != stick.ReasonOwnerGone || st.Members[0].Status != "gone" {
		t.Fatalf("a dead owner must show owner_gone without any timeout: %+v", st)
	}
	w := e.try(codex, room)
	if w.Status != stick.TakeoverAvailable || w.Reason != string(stick.ReasonOwnerGone) || w.RoomState != stick.StateOwnerGone {
		t.Fatalf("wait: %+v", w)
	}
	// The dead owner's lease is unusable, even though it has not expired.
	_, err := e.svc.Heartbeat(e.ctx, claude, l)
	if se := wantCode(t, err, stick.CodeStaleLease); se.Details["room_state"] != "owner_gone" {
		t.Fatal(se.Details)
	}
	_, err = e.svc.Release(e.ctx, claude, l, handoff("x"))
	wantCode(t, err, stick.CodeStaleLease)
	if w := e.try(claude, room); w.Status != stick.NotYet {
		t.Fatalf("the dead owner's id must not get its lease back: %+v", w)
	}
	_, err = e.svc.Takeover(e.ctx, claude, room, 1, "me again")
	wantCode(t, err, stick.CodeTakeoverIneligible)
	tk, err := e.svc.Takeover(e.ctx, codex, room, 1, "owner process exited")
	if err != nil || tk.Reason != stick.ReasonOwnerGone {
		t.Fatalf("takeover: %+v %v", tk, err)
	}
	// The log keeps why takeover was open next to the taker's own words.
	page, err := e.svc.RoomEvents(e.ctx, room, tk.EventSeq-1, 1)
	if err != nil || len(page.Events) != 1 || page.Events[0].Reason != "owner process exited" ||
		string(page.Events[0].Data) != `{"takeover_reason":"owner_gone"}` {
		t.Fatalf("takeover event: %+v %v", page.Events, err)
	}
}

func TestRecipientProcessGoneOpensTakeoverAtOnce(t *testing.T) {
	e := newEnv(t)
	a, c := agent("a"), agent("c")
	b, kill := liveAgent(t, "b")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	e.release(a, e.claim(a, room).Lease(), "over to b")
	kill()
	st := e.state(room)
	if st.State != stick.StateRecipientGone || st.Takeover != stick.ReasonRecipientGone {
		t.Fatalf("want recipient_gone: %+v", st)
	}
	if w := e.try(c, room); w.Status != stick.TakeoverAvailable || w.Reason != string(stick.ReasonRecipientGone) {
		t.Fatalf("wait: %+v", w)
	}
	// The dead recipient cannot claim under its old id while c can recover the room.
	if w := e.try(b, room); w.Status != stick.NotYet {
		t.Fatalf("dead recipient must not claim: %+v", w)
	}
	tk, err := e.svc.Takeover(e.ctx, c, room, 1, "recipient exited")
	if err != nil || tk.Revoked != "b" || tk.RecentHandoff.Handoff.Status != "over to b" {
		t.Fatalf("takeover: %+v %v", tk, err)
	}
}

// A dead holder coming back under the same id may recover the room only when nobody else can.
func TestDeadOwnerMayRecoverOnlyWhenAlone(t *testing.T) {
	e := newEnv(t)
	human, kill := liveAgent(t, "human:ana")
	room := e.join(human).RoomID
	e.claim(human, room)
	kill()
	again, _ := liveAgent(t, "human:ana")
	w := e.try(again, room)
	if w.Status != stick.TakeoverAvailable || w.Reason != string(stick.ReasonOwnerGone) {
		t.Fatalf("alone, the returning member must be offered takeover: %+v", w)
	}
	tk, err := e.svc.Takeover(e.ctx, again, room, 1, "my previous guardian died")
	if err != nil {
		t.Fatal(err)
	}
	if st := e.state(room); st.State != stick.StateOwned || st.TurnID != tk.TurnID {
		t.Fatalf("the new process holds the stick and is alive: %+v", st)
	}
}

// The peer's bug: a one-shot human command joining must not overwrite the
// process facts of the live holder, which would make it look gone later.
func TestOneShotJoinKeepsHolderFacts(t *testing.T) {
	e := newEnv(t)
	guardian, kill := liveAgent(t, "human:ana")
	other := agent("codex")
	room := e.join(guardian).RoomID
	e.join(other)
	e.claim(guardian, room)
	oneShot, killOneShot := liveAgent(t, "human:ana")
	oneShot.Kind = stick.KindOneShot
	e.join(oneShot)
	killOneShot()
	if st := e.state(room); st.State != stick.StateOwned {
		t.Fatalf("a finished one-shot command must not make the holder look gone: %+v", st)
	}
	// A long-lived session with the same id does not steal the holder's facts either.
	harness, killHarness := liveAgent(t, "human:ana")
	e.join(harness)
	killHarness()
	if st := e.state(room); st.State != stick.StateOwned {
		t.Fatalf("a join must not replace the holder's process: %+v", st)
	}
	kill()
	if st := e.state(room); st.State != stick.StateOwnerGone {
		t.Fatalf("the holder's own process decides: %+v", st)
	}
}

func TestDormantRoomStaysReadableAndResumable(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.release(a, e.claim(a, room).Lease(), "paused for the weekend")
	e.clock.Advance(72 * time.Hour)
	st := e.state(room)
	if st.State != stick.StateDormant || st.StoredState != stick.StateReserved {
		t.Fatalf("want dormant: %+v", st)
	}
	for _, m := range st.Members {
		if m.Status != "inactive" {
			t.Fatalf("member %s: %s", m.AgentID, m.Status)
		}
	}
	list, err := e.svc.ListRooms(e.ctx, e.repo)
	if err != nil || len(list) != 1 || list[0].State != stick.StateDormant || list[0].ActiveMembers != 0 {
		t.Fatalf("list: %+v %v", list, err)
	}
	page, err := e.svc.RoomEvents(e.ctx, room, 0, 0)
	if err != nil || len(page.Events) != 4 {
		t.Fatalf("the log stays readable: %+v %v", page, err)
	}
	// b comes back on Monday and resumes with the handoff.
	got := e.claim(b, room)
	if got.Handoff.Status != "paused for the weekend" {
		t.Fatalf("resume: %+v", got)
	}
	if st := e.state(room); st.State != stick.StateOwned {
		t.Fatalf("after resume: %+v", st)
	}
}
