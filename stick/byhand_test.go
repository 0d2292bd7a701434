package stick_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// person is a member with no process, as a person at a hub's page is.
func person(id string) stick.Caller { return stick.Caller{AgentID: id, Kind: stick.KindOneShot} }

// byHand is a room with a person (ana) and an agent (codex).
func byHand(t *testing.T) (*env, string, stick.Caller, stick.Caller) {
	t.Helper()
	e := newEnv(t)
	ana, codex := person("human:ana@ana"), agent("codex:1")
	res := e.join(ana)
	e.join(codex)
	return e, res.RoomID, ana, codex
}

// frozen is what a refused call must leave as it was: the room's state
// (members' presence included) and its log.
func (e *env) frozen(room string) string {
	e.t.Helper()
	st := e.state(room)
	page, err := e.svc.RoomEvents(e.ctx, room, 0, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := json.Marshal([]any{st.StoredState, st.Owner, st.ReservedFor, st.TurnID, st.LeaseExpires, st.ClaimExpires, st.Members, page.Events})
	return string(b)
}

func TestHandOnAsHolder(t *testing.T) {
	e, room, ana, codex := byHand(t)
	w := e.claim(ana, room)
	h := stick.Handoff{Status: "reviewed the parser", NextAction: "fix the lexer",
		Artifacts:     []stick.Artifact{{Path: "lex.go", Lines: []int{3, 9}, Role: stick.RoleEdit, Note: "the loop"}},
		OpenQuestions: []string{"tabs?"}, DoNot: []string{"touch go.mod"}}
	res, err := e.svc.HandOn(e.ctx, ana, room, w.TurnID, codex.AgentID, h)
	if err != nil {
		t.Fatal(err)
	}
	if res.ReservedFor != codex.AgentID || res.State != stick.StateReserved || res.TurnID != w.TurnID {
		t.Fatalf("the pass: %+v", res)
	}
	got := e.claim(codex, room)
	if got.Handoff == nil || got.FromAgentID != ana.AgentID || got.Reason != string(stick.GrantDirectPass) {
		t.Fatalf("codex got %+v", got)
	}
	if b1, b2 := mustJSON(t, *got.Handoff), mustJSON(t, h); b1 != b2 {
		t.Fatalf("the handoff changed on its way:\n%s\n%s", b1, b2)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A person hands on a free stick, or one reserved for it, in one call:
// a claim, then the release or pass.
func TestHandOnClaimsAFreeStick(t *testing.T) {
	e, room, ana, codex := byHand(t)
	res, err := e.svc.HandOn(e.ctx, ana, room, 0, codex.AgentID, handoff("plan written"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.RoomEvents(e.ctx, room, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	evs := page.Events
	last, prev := evs[len(evs)-1], evs[len(evs)-2]
	if prev.Type != stick.EventClaim || prev.From != ana.AgentID || last.Type != stick.EventPass || last.To != codex.AgentID ||
		last.Seq != res.EventSeq || res.TurnID != 1 {
		t.Fatalf("events %+v then %+v, result %+v", prev, last, res)
	}
	// codex releases in sequence: the stick is reserved for ana, who
	// hands it on to the next in order, codex again.
	w := e.claim(codex, room)
	e.release(codex, w.Lease(), "lexer fixed")
	if st := e.state(room); st.ReservedFor != ana.AgentID {
		t.Fatalf("not reserved for ana: %+v", st)
	}
	res, err = e.svc.HandOn(e.ctx, ana, room, 2, "", handoff("looked at it"))
	if err != nil {
		t.Fatal(err)
	}
	if res.ReservedFor != codex.AgentID || res.TurnID != 3 {
		t.Fatalf("the release: %+v", res)
	}
	got := e.claim(codex, room)
	if got.Handoff == nil || got.Handoff.Status != "looked at it" {
		t.Fatalf("codex got %+v", got)
	}
}

// Every refusal changes nothing: not the holder's turn, a bad handoff,
// an unfit target, a turn that moved on, a closed room, no member.
func TestHandOnRefusals(t *testing.T) {
	e, room, ana, codex := byHand(t)
	cases := []struct {
		name string
		to   string
		turn int64
		h    stick.Handoff
		code stick.Code
	}{
		{"bad handoff", codex.AgentID, 0, stick.Handoff{Status: "no next action"}, stick.CodeInvalidHandoff},
		{"no such member", "gemini:9", 0, handoff("x"), stick.CodeUnknownMember},
		{"old turn", codex.AgentID, 7, handoff("x"), stick.CodeTurnMismatch},
		{"to self", ana.AgentID, 0, handoff("x"), stick.CodeInvalidArgument},
	}
	for _, tc := range cases {
		before := e.frozen(room)
		_, err := e.svc.HandOn(e.ctx, ana, room, tc.turn, tc.to, tc.h)
		wantCode(t, err, tc.code)
		if after := e.frozen(room); after != before {
			t.Fatalf("%s changed the room:\n%s\n%s", tc.name, before, after)
		}
	}
	if _, err := e.svc.HandOn(e.ctx, person("human:bo@bo"), room, 0, "", handoff("x")); err == nil {
		t.Fatal("a person who is no member handed the stick on")
	} else {
		wantCode(t, err, stick.CodeUnknownMember)
	}

	w := e.claim(codex, room)
	before := e.frozen(room)
	_, err := e.svc.HandOn(e.ctx, ana, room, w.TurnID, "", handoff("mine now"))
	se := wantCode(t, err, stick.CodeStickHeld)
	if !strings.Contains(se.Message, codex.AgentID) || se.Details["current_owner"] != codex.AgentID || se.Details["takeover_reason"] != nil {
		t.Fatalf("stick_held: %+v", se)
	}
	if after := e.frozen(room); after != before {
		t.Fatalf("a refused hand-on changed the room:\n%s\n%s", before, after)
	}
	// Once codex's lease runs out, the refusal says takeover is open.
	e.clock.Advance(e.svc.Defaults().OwnerLeaseTTL + time.Minute)
	_, err = e.svc.HandOn(e.ctx, ana, room, w.TurnID, "", handoff("mine now"))
	se = wantCode(t, err, stick.CodeStickHeld)
	if se.Details["takeover_reason"] != string(stick.ReasonOwnerTimeout) || !strings.Contains(se.Hint, "take the stick over") {
		t.Fatalf("stick_held with takeover open: %+v", se)
	}
	tk, err := e.svc.Takeover(e.ctx, ana, room, w.TurnID, "codex went quiet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.HandOn(e.ctx, ana, room, tk.TurnID, codex.AgentID, handoff("back to you")); err != nil {
		t.Fatalf("hand on after a takeover: %v", err)
	}
	if _, err := e.svc.Close(e.ctx, ana, room, "done", ""); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.HandOn(e.ctx, ana, room, tk.TurnID, "", handoff("x"))
	wantCode(t, err, stick.CodeRoomClosed)
}
