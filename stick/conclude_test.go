package stick_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// session is a team session's world: the Services of two agent tokens
// (Alex's and Bob's teams) and of an operator, each with its member.
type session struct {
	*env
	alex, bob, op      *stick.Service
	alexC, bobC, operC stick.Caller
	room               string
}

// principal is a token's principal with every room in its scope.
func principal(id, name string, role stick.AccessRole) stick.Principal {
	return stick.Principal{TokenID: "tok_" + id, Name: name, Role: role}
}

func newSession(t *testing.T) *session {
	t.Helper()
	e := newEnv(t)
	alex := principal("alex000000000000", "Alex's Team", stick.AccessAgent)
	bob := principal("bob0000000000000", "Bob's Team", stick.AccessAgent)
	op := principal("ops0000000000000", "ops", stick.AccessOperator)
	return &session{env: e, alex: e.svc.As(alex), bob: e.svc.As(bob), op: e.svc.As(op),
		alexC: member(alex), bobC: member(bob), operC: member(op)}
}

// joinAll makes Alex create the session review (responsible for its
// conclusion when conclude) and Bob join it.
func (s *session) joinAll(conclude bool) {
	s.t.Helper()
	a, err := s.alex.JoinPath(s.ctx, s.alexC, stick.JoinRequest{Name: "review", Conclude: conclude})
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.bob.JoinPath(s.ctx, s.bobC, stick.JoinRequest{Name: "review", Conclude: conclude}); err != nil {
		s.t.Fatal(err)
	}
	s.room = a.RoomID
}

// events returns the types of the room's log, in order, and the log.
func (s *session) events() ([]string, []stick.Event) {
	s.t.Helper()
	page, err := s.svc.RoomEvents(s.ctx, s.room, 0, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	var types []string
	for _, e := range page.Events {
		types = append(types, string(e.Type))
	}
	return types, page.Events
}

// The member that creates a session by name with conclude is responsible
// for its conclusion, as its state, the lists and the log say; a member
// joining the session with conclude changes nothing; conclude without a
// name is refused.
func TestConcludeAtCreation(t *testing.T) {
	s := newSession(t)
	s.joinAll(true)
	st := s.state(s.room)
	if st.Concluder != s.alexC.AgentID || len(st.Members) != 2 {
		t.Fatalf("state: concluder %q, %d members", st.Concluder, len(st.Members))
	}
	if types, evs := s.events(); strings.Join(types, " ") != "join concluder join" || evs[1].From != s.alexC.AgentID || evs[1].To != s.alexC.AgentID {
		t.Fatalf("log: %v %+v", types, evs)
	}
	sum, err := s.bob.RoomNamed(s.ctx, "review")
	if err != nil || sum.Concluder != s.alexC.AgentID || strings.Join(sum.Joined, " ") != s.alexC.AgentID+" "+s.bobC.AgentID || sum.Members != 2 {
		t.Fatalf("the list of sessions says who joined: %+v %v", sum, err)
	}
	_, err = s.alex.JoinPath(s.ctx, s.alexC, stick.JoinRequest{Path: s.repo, Conclude: true})
	if e := wantCode(t, err, stick.CodeInvalidArgument); e.Details["field"] != "conclude" {
		t.Fatalf("conclude with a path: %+v", e)
	}
	// A room created without conclude names nobody.
	other, err := s.bob.JoinPath(s.ctx, s.bobC, stick.JoinRequest{Name: "other"})
	if err != nil || other.Room.Concluder != "" {
		t.Fatalf("a session created without conclude: %+v %v", other.Room, err)
	}
}

// An agent may not close a room that names no member responsible for its
// conclusion: only an operator may, outright, and a refused close changes
// nothing.
func TestAgentClosesNoRoomWithoutAConcluder(t *testing.T) {
	s := newSession(t)
	s.joinAll(false)
	before := s.state(s.room)
	_, err := s.alex.Close(s.ctx, s.alexC, s.room, "done", "All done.")
	e := wantCode(t, err, stick.CodeForbidden)
	if e.Details["needed_role"] != "operator" || !strings.Contains(e.Message, "names no member responsible") || e.Hint == "" {
		t.Fatalf("refusal: %+v", e)
	}
	if after := s.state(s.room); after.StoredState != before.StoredState || after.LastEventSeq != before.LastEventSeq {
		t.Fatalf("a refused close changed the room: %+v", after)
	}
	if _, err := s.op.JoinPath(s.ctx, s.operC, stick.JoinRequest{Name: "review"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.op.Close(s.ctx, s.operC, s.room, "done", "")
	if err != nil || res.ConclusionRequested || res.ClosedAt.IsZero() || s.state(s.room).State != stick.StateClosed {
		t.Fatalf("an operator closes outright: %+v %v", res, err)
	}
}

// A member asking to close a room whose conclusion another member is
// responsible for hands that member the stick, with a handoff asking for
// the conclusion (the asker's reason and draft in it); the room stays open
// until that member closes it, and only with a conclusion, which goes
// into the document. Then every wait sees the room closed.
func TestAskToCloseHandsTheConcluderTheStick(t *testing.T) {
	s := newSession(t)
	s.joinAll(true)
	turn, err := s.bob.WaitForTurn(s.ctx, s.bobC, stick.WaitRequest{RoomID: s.room, MaxWait: noWait()})
	if err != nil || turn.Status != stick.YourTurn {
		t.Fatalf("bob's turn: %+v %v", turn, err)
	}
	res, err := s.bob.Close(s.ctx, s.bobC, s.room, "the parser is fixed", "The parser uses the fake clock.")
	if err != nil || !res.ConclusionRequested || res.Concluder != s.alexC.AgentID || !res.ClosedAt.IsZero() || res.DocVersion != 0 {
		t.Fatalf("bob asks to close: %+v %v", res, err)
	}
	st := s.state(s.room)
	if st.State != stick.StateReserved || st.ReservedFor != s.alexC.AgentID || st.PendingHandoff == nil || st.PendingHandoff.Seq != res.EventSeq {
		t.Fatalf("after the request: %+v", st)
	}
	ev := st.PendingHandoff
	if ev.Type != stick.EventPass || ev.Reason != stick.ReasonConclusionRequested || ev.From != s.bobC.AgentID || ev.To != s.alexC.AgentID {
		t.Fatalf("the request's event: %+v", ev)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "closed_at") {
		t.Fatalf("a close that closed nothing has a closed_at: %s", b)
	}

	got, err := s.alex.WaitForTurn(s.ctx, s.alexC, stick.WaitRequest{RoomID: s.room, MaxWait: noWait()})
	if err != nil || got.Status != stick.YourTurn || got.Reason != string(stick.GrantDirectPass) || got.FromAgentID != s.bobC.AgentID || got.Handoff == nil {
		t.Fatalf("alex's turn: %+v %v", got, err)
	}
	for _, want := range []string{"asks to close the room: the parser is fixed", "The parser uses the fake clock."} {
		if !strings.Contains(got.Handoff.Status, want) {
			t.Fatalf("the handoff's status lacks %q: %q", want, got.Handoff.Status)
		}
	}
	if !strings.Contains(got.Handoff.NextAction, "responsible for this room's conclusion") {
		t.Fatalf("next action: %q", got.Handoff.NextAction)
	}

	_, err = s.alex.Close(s.ctx, s.alexC, s.room, "done", "  ")
	if e := wantCode(t, err, stick.CodeInvalidArgument); e.Details["field"] != "conclusion" {
		t.Fatalf("the concluder closing without a conclusion: %+v", e)
	}
	if s.state(s.room).State != stick.StateOwned {
		t.Fatal("a refused close closed the room")
	}
	done, err := s.alex.Close(s.ctx, s.alexC, s.room, "done", "The parser test uses the fake clock now.")
	if err != nil || done.ConclusionRequested || done.ClosedAt.IsZero() || done.DocVersion == 0 {
		t.Fatalf("the concluder closes: %+v %v", done, err)
	}
	doc, err := s.bob.ReadDoc(s.ctx, s.room, 0)
	if err != nil || !strings.Contains(doc.Content, "## Conclusion") || !strings.Contains(doc.Content, "fake clock now") {
		t.Fatalf("the document after the close: %q %v", doc.Content, err)
	}
	if w, err := s.bob.WaitForTurn(s.ctx, s.bobC, stick.WaitRequest{RoomID: s.room, MaxWait: noWait()}); err != nil || w.Status != stick.Closed {
		t.Fatalf("bob's wait after the close: %+v %v", w, err)
	}

	_, err = s.bob.Close(s.ctx, s.bobC, s.room, "again", "")
	wantCode(t, err, stick.CodeRoomClosed)
	rev, err := s.alex.Close(s.ctx, s.alexC, s.room, "revised", "The parser and the lexer use the fake clock now.")
	if err != nil || !rev.Revised {
		t.Fatalf("the concluder revises the conclusion: %+v %v", rev, err)
	}
}

// A member asks to close in its own turn: while another member holds the
// stick, or it is reserved for another, the request is stick_held and
// changes nothing; with the stick free, or reserved for the asker, it
// goes to the concluder.
func TestAskToCloseInOwnTurn(t *testing.T) {
	s := newSession(t)
	s.joinAll(true)
	carolP := principal("carol00000000000", "Carol's Team", stick.AccessAgent)
	carol, carolC := s.svc.As(carolP), member(carolP)
	if _, err := carol.JoinPath(s.ctx, carolC, stick.JoinRequest{Name: "review"}); err != nil {
		t.Fatal(err)
	}
	lease := s.claim(carolC, s.room).Lease()
	before := s.state(s.room)
	_, err := s.bob.Close(s.ctx, s.bobC, s.room, "done", "")
	if e := wantCode(t, err, stick.CodeStickHeld); !strings.Contains(e.Message, carolC.AgentID+" holds the stick") {
		t.Fatalf("asking while another holds the stick: %+v", e)
	}
	if _, err := carol.Pass(s.ctx, carolC, lease, s.alexC.AgentID, handoff("over to alex")); err != nil {
		t.Fatal(err)
	}
	_, err = s.bob.Close(s.ctx, s.bobC, s.room, "done", "")
	if e := wantCode(t, err, stick.CodeStickHeld); !strings.Contains(e.Message, "reserved for "+s.alexC.AgentID) {
		t.Fatalf("asking while the stick is reserved for another: %+v", e)
	}
	if after := s.state(s.room); after.TurnID != before.TurnID || after.ReservedFor != s.alexC.AgentID {
		t.Fatalf("after the refusals: %+v", after)
	}
	// Alex passes to Bob, who asks with the stick reserved for it.
	alexLease := s.claim(s.alexC, s.room).Lease()
	if _, err := s.alex.Pass(s.ctx, s.alexC, alexLease, s.bobC.AgentID, handoff("bob's turn")); err != nil {
		t.Fatal(err)
	}
	res, err := s.bob.Close(s.ctx, s.bobC, s.room, "done", "")
	if err != nil || !res.ConclusionRequested {
		t.Fatalf("asking with the stick reserved for the asker: %+v %v", res, err)
	}
	if st := s.state(s.room); st.ReservedFor != s.alexC.AgentID || st.PendingHandoff.Reason != stick.ReasonConclusionRequested {
		t.Fatalf("after the request: %+v", st)
	}
	// With the stick free (a fresh session), anyone may ask.
	if _, err := s.alex.JoinPath(s.ctx, s.alexC, stick.JoinRequest{Name: "idle", Conclude: true}); err != nil {
		t.Fatal(err)
	}
	idle, err := s.bob.JoinPath(s.ctx, s.bobC, stick.JoinRequest{Name: "idle"})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := s.bob.Close(s.ctx, s.bobC, idle.RoomID, "", ""); err != nil || !res.ConclusionRequested || res.Concluder != s.alexC.AgentID {
		t.Fatalf("asking in an idle room: %+v %v", res, err)
	}
}

// The stick goes to the concluder only if it takes turns: one that left
// the room, or is inactive, makes the request unknown_member, saying why
// and that an operator can close the room.
func TestAskToCloseNeedsAConcluderWhoTakesTurns(t *testing.T) {
	s := newSession(t)
	s.joinAll(true)
	s.clock.Advance(s.svc.Defaults().PresenceTTL + time.Minute)
	_, err := s.bob.Close(s.ctx, s.bobC, s.room, "done", "")
	if e := wantCode(t, err, stick.CodeUnknownMember); e.Details["why"] != stick.MemberInactive || !strings.Contains(e.Hint, "operator") {
		t.Fatalf("an inactive concluder: %+v", e)
	}
	if err := s.alex.Leave(s.ctx, s.alexC, s.room); err != nil {
		t.Fatal(err)
	}
	_, err = s.bob.Close(s.ctx, s.bobC, s.room, "done", "")
	if e := wantCode(t, err, stick.CodeUnknownMember); e.Details["why"] != "not_a_member" || e.Details["concluder"] != s.alexC.AgentID {
		t.Fatalf("a concluder that left: %+v", e)
	}
	if st := s.state(s.room); st.State == stick.StateClosed || st.State == stick.StateReserved {
		t.Fatalf("a refused request changed the room: %+v", st)
	}
}

// The concluder, or an operator, names another member responsible for
// the conclusion; another agent may not, nor may an agent name one in a
// room that names none; only a member can be named; each change is a
// concluder event.
func TestSetConcluder(t *testing.T) {
	s := newSession(t)
	s.joinAll(true)
	_, err := s.bob.SetConcluder(s.ctx, s.bobC, s.room, s.bobC.AgentID)
	if e := wantCode(t, err, stick.CodeForbidden); e.Details["concluder"] != s.alexC.AgentID {
		t.Fatalf("an agent that is not the concluder: %+v", e)
	}
	st, err := s.alex.SetConcluder(s.ctx, s.alexC, s.room, s.bobC.AgentID)
	if err != nil || st.Concluder != s.bobC.AgentID {
		t.Fatalf("the concluder hands the duty on: %+v %v", st, err)
	}
	if _, err := s.alex.SetConcluder(s.ctx, s.alexC, s.room, s.alexC.AgentID); stick.ErrorCode(err) != stick.CodeForbidden {
		t.Fatalf("the former concluder names itself again: %v", err)
	}
	if st, err := s.bob.SetConcluder(s.ctx, s.bobC, s.room, ""); err != nil || st.Concluder != "" {
		t.Fatalf("the concluder gives the duty up: %+v %v", st, err)
	}
	_, err = s.bob.SetConcluder(s.ctx, s.bobC, s.room, s.bobC.AgentID)
	if e := wantCode(t, err, stick.CodeForbidden); e.Details["needed_role"] != "operator" {
		t.Fatalf("an agent naming one where none is: %+v", e)
	}
	if _, err := s.op.JoinPath(s.ctx, s.operC, stick.JoinRequest{Name: "review"}); err != nil {
		t.Fatal(err)
	}
	_, err = s.op.SetConcluder(s.ctx, s.operC, s.room, "codex@nobody")
	if e := wantCode(t, err, stick.CodeUnknownMember); e.Details["agent_id"] != "codex@nobody" {
		t.Fatalf("naming no member: %+v", e)
	}
	_, err = s.op.SetConcluder(s.ctx, s.operC, s.room, "bad id with spaces")
	wantCode(t, err, stick.CodeInvalidArgument)
	if st, err := s.op.SetConcluder(s.ctx, s.operC, s.room, s.alexC.AgentID); err != nil || st.Concluder != s.alexC.AgentID {
		t.Fatalf("an operator names one: %+v %v", st, err)
	}
	last := s.state(s.room).LastEventSeq
	if _, err := s.op.SetConcluder(s.ctx, s.operC, s.room, s.alexC.AgentID); err != nil || s.state(s.room).LastEventSeq != last {
		t.Fatalf("naming the member named already logged something: %v", err)
	}
	var names []string
	_, evs := s.events()
	for _, e := range evs {
		if e.Type == stick.EventConcluder {
			names = append(names, e.From+">"+e.To)
		}
	}
	want := []string{s.alexC.AgentID + ">" + s.alexC.AgentID, s.alexC.AgentID + ">" + s.bobC.AgentID, s.bobC.AgentID + ">", s.operC.AgentID + ">" + s.alexC.AgentID}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("concluder events %q, want %q", names, want)
	}
}
