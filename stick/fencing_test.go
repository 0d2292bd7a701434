package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func TestStaleLeaseRejected(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	l := e.claim(a, room).Lease()
	// A made-up lease in the right turn is stale; so is b acting with a's lease.
	bad := l
	bad.LeaseID = "lease_forged"
	se := wantCode(t, func() error { _, err := e.svc.Heartbeat(e.ctx, a, bad); return err }(), stick.CodeStaleLease)
	if se.Details["current_owner"] != "a" || se.Details["current_turn_id"] != int64(1) || se.Details["room_state"] != "owned" {
		t.Fatalf("stale_lease must carry the current owner, turn and state: %v", se.Details)
	}
	_, err := e.svc.Release(e.ctx, b, l, handoff("x"))
	wantCode(t, err, stick.CodeStaleLease)
	// After a's release its lease is stale for everything.
	e.release(a, l, "done")
	_, err = e.svc.Heartbeat(e.ctx, a, l)
	wantCode(t, err, stick.CodeStaleLease)
	_, err = e.svc.Release(e.ctx, a, l, handoff("again"))
	wantCode(t, err, stick.CodeStaleLease)
}

func TestTurnMismatchCheckedBeforeStaleLease(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	l := e.claim(a, room).Lease()
	bad := l
	bad.TurnID = 7
	bad.LeaseID = "lease_forged" // both wrong: the turn wins
	_, err := e.svc.Heartbeat(e.ctx, a, bad)
	se := wantCode(t, err, stick.CodeTurnMismatch)
	if se.Details["current_turn_id"] != int64(1) {
		t.Fatalf("details: %v", se.Details)
	}
	_, err = e.svc.Release(e.ctx, a, bad, stick.Handoff{}) // invalid handoff too: fencing comes first
	wantCode(t, err, stick.CodeTurnMismatch)
}

func TestHandoffValidationErrors(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	l := e.claim(a, room).Lease()
	long := make([]byte, stick.MaxHandoffText+1)
	for i := range long {
		long[i] = 'x'
	}
	cases := []struct {
		name  string
		h     stick.Handoff
		field string
	}{
		{"empty status", stick.Handoff{NextAction: "n"}, "status"},
		{"blank status", stick.Handoff{Status: " \n\t", NextAction: "n"}, "status"},
		{"empty next action", stick.Handoff{Status: "s"}, "next_action"},
		{"huge status", stick.Handoff{Status: string(long), NextAction: "n"}, "status"},
		{"invalid utf8", stick.Handoff{Status: "s", NextAction: "\xff"}, "next_action"},
		{"artifact without path", stick.Handoff{Status: "s", NextAction: "n", Artifacts: []stick.Artifact{{Role: stick.RoleEdit}}}, "artifacts[0].path"},
		{"bad role", stick.Handoff{Status: "s", NextAction: "n", Artifacts: []stick.Artifact{{Path: "a", Role: stick.RoleEdit}, {Path: "b", Role: "delete"}}}, "artifacts[1].role"},
		{"missing role", stick.Handoff{Status: "s", NextAction: "n", Artifacts: []stick.Artifact{{Path: "a"}}}, "artifacts[0].role"},
		{"one line number", stick.Handoff{Status: "s", NextAction: "n", Artifacts: []stick.Artifact{{Path: "a", Lines: []int{3}, Role: stick.RoleEdit}}}, "artifacts[0].lines"},
		{"reversed lines", stick.Handoff{Status: "s", NextAction: "n", Artifacts: []stick.Artifact{{Path: "a", Lines: []int{9, 3}, Role: stick.RoleEdit}}}, "artifacts[0].lines"},
		{"line zero", stick.Handoff{Status: "s", NextAction: "n", Artifacts: []stick.Artifact{{Path: "a", Lines: []int{0, 3}, Role: stick.RoleEdit}}}, "artifacts[0].lines"},
		{"empty question", stick.Handoff{Status: "s", NextAction: "n", OpenQuestions: []string{"ok", ""}}, "open_questions[1]"},
		{"empty do-not", stick.Handoff{Status: "s", NextAction: "n", DoNot: []string{" "}}, "do_not[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Release(e.ctx, a, l, tc.h)
			se := wantCode(t, err, stick.CodeInvalidHandoff)
			if se.Details["field"] != tc.field {
				t.Fatalf("field = %v, want %s (%s)", se.Details["field"], tc.field, se.Message)
			}
			_, err = e.svc.Pass(e.ctx, a, l, "someone", tc.h)
			wantCode(t, err, stick.CodeInvalidHandoff)
		})
	}
	// Every rejection changed nothing: a still holds turn 1 and can release properly.
	if st := e.state(room); st.Owner != "a" || st.TurnID != 1 || st.LastEventSeq != 2 {
		t.Fatalf("rejected handoffs must not write: %+v", st)
	}
	e.release(a, l, "valid")
}

func TestInvalidArgumentsChangeNothing(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	_, err := e.svc.WaitForTurn(e.ctx, a, stick.WaitRequest{})
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.WaitForTurn(e.ctx, a, stick.WaitRequest{RoomID: room, Cursor: "abc"})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "cursor" {
		t.Fatal(se.Details)
	}
	neg := -time.Second
	_, err = e.svc.WaitForTurn(e.ctx, a, stick.WaitRequest{RoomID: room, MaxWait: &neg})
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.Heartbeat(e.ctx, a, stick.Lease{RoomID: room})
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.WaitForTurn(e.ctx, stick.Caller{}, stick.WaitRequest{RoomID: room})
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.WaitForTurn(e.ctx, a, stick.WaitRequest{RoomID: "room_nope", MaxWait: noWait()})
	wantCode(t, err, stick.CodeRoomNotFound)
	_, err = e.svc.WaitForTurn(e.ctx, agent("stranger"), stick.WaitRequest{RoomID: room, MaxWait: noWait()})
	wantCode(t, err, stick.CodeUnknownMember)
	_, err = e.svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: e.repo + "/does/not/exist"})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "context_path" {
		t.Fatal(se.Details)
	}
	_, err = e.svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: e.repo, AgentIDOverride: "bad id"})
	wantCode(t, err, stick.CodeInvalidArgument)
	if st := e.state(room); st.TurnID != 0 || len(st.Members) != 1 || st.LastEventSeq != 1 {
		t.Fatalf("bad input must change nothing: %+v", st)
	}
}

// Timeout opens takeover but does not revoke: the expired holder may still heartbeat.
func TestExpiredOwnerHeartbeatsBeforeTakeover(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	l := e.claim(a, room).Lease()
	e.clock.Advance(46 * time.Minute)
	if st := e.state(room); st.State != stick.StateStaleOwner || st.Takeover != stick.ReasonOwnerTimeout {
		t.Fatalf("want stale_owner, got %+v", st)
	}
	hb, err := e.svc.Heartbeat(e.ctx, a, l)
	if err != nil {
		t.Fatalf("expired owner must be able to renew before a takeover: %v", err)
	}
	if !hb.LeaseExpiresAt.Equal(e.clock.Now().Add(45 * time.Minute)) {
		t.Fatalf("lease: %v", hb.LeaseExpiresAt)
	}
	if st := e.state(room); st.State != stick.StateOwned {
		t.Fatalf("renewed room must be owned: %+v", st)
	}
	_, err = e.svc.Takeover(e.ctx, b, room, 1, "owner lease expired")
	wantCode(t, err, stick.CodeTakeoverNotAvailable)
}

func TestOwnerTimeoutTakeover(t *testing.T) {
	e := newEnv(t)
	claude, codex := agent("claude"), agent("codex")
	room := e.join(claude).RoomID
	e.join(codex)
	old := e.claim(claude, room).Lease()
	e.clock.Advance(44 * time.Minute)
	_, err := e.svc.Takeover(e.ctx, codex, room, 1, "impatient")
	se := wantCode(t, err, stick.CodeTakeoverNotAvailable)
	if se.Details["current_owner"] != "claude" || se.Hint == "" {
		t.Fatalf("details: %v hint %q", se.Details, se.Hint)
	}
	e.clock.Advance(2 * time.Minute)
	w := e.try(codex, room)
	if w.Status != stick.TakeoverAvailable || w.Reason != string(stick.ReasonOwnerTimeout) ||
		w.RoomState != stick.StateStaleOwner || w.CurrentOwner != "claude" || w.TurnID != 1 {
		t.Fatalf("wait must report takeover_available: %+v", w)
	}
	if st := e.state(room); st.Owner != "claude" {
		t.Fatal("wait_for_turn must never take over by itself")
	}
	_, err = e.svc.Takeover(e.ctx, claude, room, 1, "mine")
	wantCode(t, err, stick.CodeTakeoverIneligible)
	_, err = e.svc.Takeover(e.ctx, codex, room, 0, "owner lease expired")
	wantCode(t, err, stick.CodeTurnMismatch)
	tk, err := e.svc.Takeover(e.ctx, codex, room, 1, "owner lease expired")
	if err != nil {
		t.Fatal(err)
	}
	if tk.TurnID != 2 || tk.Revoked != "claude" || tk.Reason != stick.ReasonOwnerTimeout || tk.LeaseID == old.LeaseID {
		t.Fatalf("takeover: %+v", tk)
	}
	// The old owner is fenced out.
	_, err = e.svc.Release(e.ctx, claude, old, handoff("late"))
	wantCode(t, err, stick.CodeTurnMismatch)
	old.TurnID = 2
	_, err = e.svc.Release(e.ctx, claude, old, handoff("late"))
	wantCode(t, err, stick.CodeStaleLease)
	if _, err := e.svc.Heartbeat(e.ctx, codex, tk.Lease()); err != nil {
		t.Fatal(err)
	}
}

func TestClaimTimeoutAndTakeover(t *testing.T) {
	e := newEnv(t)
	codex, claude, gemini := agent("codex"), agent("claude"), agent("gemini")
	room := e.join(codex).RoomID
	e.join(claude)
	e.join(gemini)
	l := e.claim(codex, room).Lease()
	e.release(codex, l, "plan written") // reserved for claude
	e.clock.Advance(19 * time.Minute)
	if w := e.try(gemini, room); w.Status != stick.NotYet || w.ReservedFor != "claude" {
		t.Fatalf("before the claim timeout: %+v", w)
	}
	e.clock.Advance(2 * time.Minute)
	w := e.try(gemini, room)
	if w.Status != stick.TakeoverAvailable || w.Reason != string(stick.ReasonClaimTimeout) || w.ReservedFor != "claude" || w.RoomState != stick.StateReserved {
		t.Fatalf("after the claim timeout: %+v", w)
	}
	// The prior owner is guarded while gemini is active.
	if w := e.try(codex, room); w.Status != stick.NotYet {
		t.Fatalf("prior owner must not be offered takeover: %+v", w)
	}
	_, err := e.svc.Takeover(e.ctx, codex, room, 1, "claim timeout expired")
	if se := wantCode(t, err, stick.CodeTakeoverIneligible); se.Details["reason"] != "claim_timeout" {
		t.Fatal(se.Details)
	}
	_, err = e.svc.Takeover(e.ctx, claude, room, 1, "it is mine")
	wantCode(t, err, stick.CodeTakeoverIneligible)
	tk, err := e.svc.Takeover(e.ctx, gemini, room, 1, "claim timeout expired")
	if err != nil {
		t.Fatal(err)
	}
	if tk.TurnID != 2 || tk.Revoked != "claude" || tk.RecentHandoff == nil || tk.RecentHandoff.Handoff.Status != "plan written" {
		t.Fatalf("takeover: %+v", tk)
	}
	// claude wakes up late: the turn is gone.
	if w := e.try(claude, room); w.Status != stick.NotYet || w.CurrentOwner != "gemini" {
		t.Fatalf("late recipient: %+v", w)
	}
}

func TestPriorOwnerAllowedWhenAlone(t *testing.T) {
	e := newEnv(t)
	codex, claude := agent("codex"), agent("claude")
	room := e.join(codex).RoomID
	e.join(claude)
	l := e.claim(codex, room).Lease()
	e.release(codex, l, "x") // reserved for claude
	e.clock.Advance(21 * time.Minute)
	// Nobody but the recipient (who is excluded) and codex: codex may take over rather than deadlock.
	w := e.try(codex, room)
	if w.Status != stick.TakeoverAvailable {
		t.Fatalf("prior owner alone must be offered takeover: %+v", w)
	}
	if _, err := e.svc.Takeover(e.ctx, codex, room, 1, "claim timeout, nobody else here"); err != nil {
		t.Fatal(err)
	}
}

func TestPriorOwnerRejectedWhenAnotherIsActive(t *testing.T) {
	e := newEnv(t)
	codex, claude, gemini := agent("codex"), agent("claude"), agent("gemini")
	room := e.join(codex).RoomID
	e.join(claude)
	e.join(gemini)
	l := e.claim(codex, room).Lease()
	e.release(codex, l, "x")
	e.clock.Advance(21 * time.Minute)
	_, err := e.svc.Takeover(e.ctx, codex, room, 1, "claim timeout")
	wantCode(t, err, stick.CodeTakeoverIneligible)
	// Once gemini's presence lapses, codex is the only candidate and may recover the room.
	e.clock.Advance(4 * time.Hour)
	if _, err := e.svc.Takeover(e.ctx, codex, room, 1, "claim timeout, gemini gone quiet"); err != nil {
		t.Fatalf("prior owner must be allowed once no other member is active: %v", err)
	}
}

func TestRecipientClaimsAfterClaimTimeoutBeforeTakeover(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	e.release(a, e.claim(a, room).Lease(), "x")
	e.clock.Advance(time.Hour)
	got := e.claim(b, room)
	if got.TurnID != 2 || got.Reason != string(stick.GrantSequence) {
		t.Fatalf("late recipient must still claim before any takeover: %+v", got)
	}
	_, err := e.svc.Takeover(e.ctx, c, room, 1, "too late")
	wantCode(t, err, stick.CodeTurnMismatch)
}

func TestTakeoverNotAvailableOnIdleRoom(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	_, err := e.svc.Takeover(e.ctx, a, room, 0, "why not")
	wantCode(t, err, stick.CodeTakeoverNotAvailable)
	_, err = e.svc.Takeover(e.ctx, a, room, 0, "  ")
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.Takeover(e.ctx, agent("stranger"), room, 0, "x")
	wantCode(t, err, stick.CodeUnknownMember)
}

func TestEventLogReconstructionAfterTakeover(t *testing.T) {
	e := newEnv(t)
	codex, claude, gemini := agent("codex"), agent("claude"), agent("gemini")
	room := e.join(codex).RoomID
	e.join(claude)
	e.join(gemini)
	e.release(codex, e.claim(codex, room).Lease(), "wrote the parser; tests pending")
	claimed := e.claim(claude, room) // claude receives codex's handoff, then goes silent
	e.clock.Advance(46 * time.Minute)
	tk, err := e.svc.Takeover(e.ctx, gemini, room, claimed.TurnID, "owner lease expired")
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.RoomEvents(e.ctx, room, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []stick.EventType
	byseq := map[int64]stick.Event{}
	for _, ev := range page.Events {
		types = append(types, ev.Type)
		byseq[ev.Seq] = ev
	}
	want := []stick.EventType{"join", "join", "join", "claim", "release", "claim", "takeover"}
	if len(types) != len(want) {
		t.Fatalf("events: %v", types)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("events: %v, want %v", types, want)
		}
	}
	// From the takeover, walk back: the claim of the revoked turn points at the handoff claude received.
	take := page.Events[6]
	if take.Reason != "owner lease expired" || take.From != "gemini" || take.To != "claude" || take.TurnID != tk.TurnID {
		t.Fatalf("takeover event: %+v", take)
	}
	claim := page.Events[5]
	received := byseq[claim.Ref]
	if claim.From != "claude" || received.Type != stick.EventRelease || received.Handoff.Status != "wrote the parser; tests pending" {
		t.Fatalf("claude's claim must reference the handoff it received: %+v -> %+v", claim, received)
	}
	if tk.RecentHandoff == nil || tk.RecentHandoff.Seq != received.Seq {
		t.Fatalf("takeover result must point at the recent handoff: %+v", tk.RecentHandoff)
	}
	// Paging: limit and cursor.
	p1, _ := e.svc.RoomEvents(e.ctx, room, 0, 4)
	p2, _ := e.svc.RoomEvents(e.ctx, room, p1.Cursor, 4)
	if len(p1.Events) != 4 || !p1.HasMore || len(p2.Events) != 3 || p2.HasMore || p2.Events[0].Seq != page.Events[4].Seq {
		t.Fatalf("paging: %+v / %+v", p1, p2)
	}
}
