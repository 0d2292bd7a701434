package stick_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func TestJoinResolvesToWorkspaceRootAndNestedRooms(t *testing.T) {
	e := newEnv(t)
	foo := filepath.Join(e.repo, "packages", "foo", "src")
	bar := filepath.Join(e.repo, "packages", "bar")
	for _, d := range []string{foo, bar} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(foo, "main.go")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a, b, c := agent("a"), agent("b"), agent("c")
	ja, err := e.svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: file})
	if err != nil {
		t.Fatal(err)
	}
	jb, _ := e.svc.JoinPath(e.ctx, b, stick.JoinRequest{Path: bar})
	if ja.CanonicalPath != e.repo || jb.RoomID != ja.RoomID || ja.RequestedPath != foo || !ja.Created || jb.Created {
		t.Fatalf("monorepo paths must share the root room: %+v / %+v", ja, jb)
	}
	// force_new creates a nested room at the path, with a warning.
	nested, err := e.svc.JoinPath(e.ctx, c, stick.JoinRequest{Path: foo, ForceNew: true})
	if err != nil {
		t.Fatal(err)
	}
	if nested.RoomID == ja.RoomID || nested.CanonicalPath != foo || nested.Warning == "" || !nested.Created {
		t.Fatalf("nested: %+v", nested)
	}
	// force_new again at the same path joins the existing nested room.
	again, _ := e.svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: foo, ForceNew: true})
	if again.RoomID != nested.RoomID || again.Created {
		t.Fatalf("force_new at an existing room must join it: %+v", again)
	}
	// Without force_new, paths below the nested room join it; others join the root room.
	deep := filepath.Join(foo, "x")
	os.Mkdir(deep, 0o755)
	jd, _ := e.svc.JoinPath(e.ctx, b, stick.JoinRequest{Path: deep})
	jr, _ := e.svc.JoinPath(e.ctx, b, stick.JoinRequest{Path: bar})
	if jd.RoomID != nested.RoomID || jr.RoomID != ja.RoomID {
		t.Fatalf("deepest room wins: %+v / %+v", jd, jr)
	}
	list, err := e.svc.ListRooms(e.ctx, deep)
	if err != nil || len(list) != 2 || list[0].RoomID != nested.RoomID || list[1].RoomID != ja.RoomID {
		t.Fatalf("list from deep must show the chain, deepest first: %+v %v", list, err)
	}
	all, _ := e.svc.ListRooms(e.ctx, e.repo)
	if len(all) != 2 {
		t.Fatalf("list at the root must include nested rooms: %+v", all)
	}
}

func TestJoinOverrideIsFlaggedAndIdempotent(t *testing.T) {
	e := newEnv(t)
	j, err := e.svc.JoinPath(e.ctx, agent("claude-code:a3f1"), stick.JoinRequest{Path: e.repo, AgentIDOverride: "tester"})
	if err != nil || j.AgentID != "tester" || !j.NewMember {
		t.Fatalf("override: %+v %v", j, err)
	}
	if j.ReclaimToken == "" {
		t.Fatalf("a join must return a reclaim token: %+v", j)
	}
	_, err = e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, AgentIDOverride: "tester"})
	wantCode(t, err, stick.CodeAgentIDInUse)
	again, err := e.svc.JoinPath(e.ctx, agent("x"), stick.JoinRequest{Path: e.repo, AgentIDOverride: "tester", ReclaimToken: j.ReclaimToken})
	if err != nil || again.NewMember || len(again.Room.Members) != 1 || again.ReclaimToken != j.ReclaimToken {
		t.Fatalf("joining twice must not add a member twice: %+v", again)
	}
	page, _ := e.svc.RoomEvents(e.ctx, j.RoomID, 0, 0)
	var data map[string]any
	if len(page.Events) != 1 || json.Unmarshal(page.Events[0].Data, &data) != nil || data["override"] != true {
		t.Fatalf("the join event must flag the override: %+v", page.Events)
	}
}

func TestCloseRoom(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	l := e.claim(a, room).Lease()
	_, err := e.svc.Close(e.ctx, b, room, "done", "")
	wantCode(t, err, stick.CodeStickHeld)
	res, err := e.svc.Close(e.ctx, a, room, "shipped", "We shipped v1.")
	if err != nil || res.Revised {
		t.Fatalf("close: %+v %v", res, err)
	}
	st := e.state(room)
	if st.State != stick.StateClosed || st.Owner != "" || st.ClosedAt == nil {
		t.Fatalf("closed: %+v", st)
	}
	if w := e.try(b, room); w.Status != stick.Closed {
		t.Fatalf("waiters get closed: %+v", w)
	}
	_, err = e.svc.Heartbeat(e.ctx, a, l)
	wantCode(t, err, stick.CodeRoomClosed)
	_, err = e.svc.AppendNote(e.ctx, a, room, "hello?")
	wantCode(t, err, stick.CodeRoomClosed)
	_, err = e.svc.Takeover(e.ctx, b, room, 1, "x")
	wantCode(t, err, stick.CodeRoomClosed)
	// Closing again revises the conclusion.
	res, err = e.svc.Close(e.ctx, b, room, "", "We shipped v1.1.")
	if err != nil || !res.Revised {
		t.Fatalf("revise: %+v %v", res, err)
	}
	page, _ := e.svc.RoomEvents(e.ctx, room, 0, 0)
	last := page.Events[len(page.Events)-1]
	if last.Type != stick.EventClose || last.Text != "We shipped v1.1." {
		t.Fatalf("last event: %+v", last)
	}
	// A new join at the path starts a fresh room; the closed one stays readable.
	j := e.join(a)
	if j.RoomID == room || !j.Created {
		t.Fatalf("join after close must create a new room: %+v", j)
	}
	if st := e.state(room); st.State != stick.StateClosed {
		t.Fatal("the closed room must stay readable")
	}
}

// A timeout never revokes: a stale holder blocks closing until someone takes
// over; a holder whose process is proven gone does not.
func TestCloseRespectsStaleButNotDeadHolder(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.claim(a, room)
	e.clock.Advance(time.Hour)
	_, err := e.svc.Close(e.ctx, b, room, "abandoned", "")
	if se := wantCode(t, err, stick.CodeStickHeld); !strings.Contains(se.Hint, "take over") {
		t.Fatalf("hint must say to take over first: %q", se.Hint)
	}
	if _, err := e.svc.Takeover(e.ctx, b, room, 1, "owner lease expired"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Close(e.ctx, b, room, "abandoned", ""); err != nil {
		t.Fatalf("the new holder may close: %v", err)
	}

	e2 := newEnv(t)
	dead, kill := liveAgent(t, "dead")
	room = e2.join(dead).RoomID
	e2.join(b)
	e2.claim(dead, room)
	kill()
	if _, err := e2.svc.Close(e2.ctx, b, room, "holder crashed", ""); err != nil {
		t.Fatalf("a dead holder must not block closing: %v", err)
	}
}

func TestLeave(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	l := e.claim(a, room).Lease()
	wantCode(t, e.svc.Leave(e.ctx, a, room), stick.CodeStickHeld)
	e.release(a, l, "for b")
	// b leaves while the stick is reserved for it: the reservation and handoff move on to c.
	if err := e.svc.Leave(e.ctx, b, room); err != nil {
		t.Fatal(err)
	}
	st := e.state(room)
	if st.ReservedFor != "c" || len(st.Members) != 2 {
		t.Fatalf("after leave: %+v", st)
	}
	got := e.claim(c, room)
	if got.Handoff.Status != "for b" {
		t.Fatalf("the handoff follows the reservation: %+v", got)
	}
	// Leaving again says there is nothing to leave, not to join first.
	if se := wantCode(t, e.svc.Leave(e.ctx, b, room), stick.CodeUnknownMember); !strings.Contains(se.Message, "nothing to leave") ||
		strings.Contains(se.Hint, "join_path") {
		t.Errorf("a second leave: %s (hint %q)", se.Message, se.Hint)
	}
	_, err := e.svc.WaitForTurn(e.ctx, b, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
	wantCode(t, err, stick.CodeUnknownMember)
	// Rejoining puts b at the end of the sequence.
	j := e.join(b)
	if !j.NewMember || j.Room.Members[len(j.Room.Members)-1].AgentID != "b" {
		t.Fatalf("rejoin: %+v", j.Room.Members)
	}
}

func TestNotesNeverChangeOwnership(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.claim(a, room)
	before := e.state(room)
	ev, err := e.svc.AppendNote(e.ctx, b, room, "the CI is red on main, FYI")
	if err != nil || ev.Type != stick.EventNote || ev.From != "b" || ev.Seq == 0 {
		t.Fatalf("note: %+v %v", ev, err)
	}
	after := e.state(room)
	if after.Owner != before.Owner || after.TurnID != before.TurnID || after.StoredState != before.StoredState {
		t.Fatalf("a note changed ownership: %+v -> %+v", before, after)
	}
	_, err = e.svc.AppendNote(e.ctx, b, room, "   ")
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.AppendNote(e.ctx, agent("stranger"), room, "hi")
	wantCode(t, err, stick.CodeUnknownMember)
}

func TestSetPolicy(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	d := func(x time.Duration) *time.Duration { return &x }
	p, err := e.svc.SetPolicy(e.ctx, a, room, stick.PolicyUpdate{OwnerLeaseTTL: d(2 * time.Minute), HeartbeatInterval: d(30 * time.Second), ClaimTTL: d(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if p.OwnerLeaseTTL != 2*time.Minute || p.ClaimTTL != time.Minute || p.PresenceTTL != stick.DefaultPolicy.PresenceTTL {
		t.Fatalf("effective policy: %+v", p)
	}
	if j := e.join(b); j.Policy != p {
		t.Fatalf("join must return the room's effective policy: %+v", j.Policy)
	}
	// The new lease applies to the next grant.
	l := e.claim(a, room)
	if !l.LeaseExpiresAt.Equal(e.clock.Now().Add(2 * time.Minute)) {
		t.Fatalf("lease: %v", l.LeaseExpiresAt)
	}
	e.clock.Advance(3 * time.Minute)
	if w := e.try(b, room); w.Status != stick.TakeoverAvailable {
		t.Fatalf("short lease: %+v", w)
	}
	for _, tc := range []struct {
		u     stick.PolicyUpdate
		field string
	}{
		{stick.PolicyUpdate{HeartbeatInterval: d(3 * time.Minute)}, "heartbeat_interval_ms"},
		{stick.PolicyUpdate{ClaimTTL: d(-time.Second)}, "claim_ttl_ms"},
		{stick.PolicyUpdate{ClaimTTL: d(time.Millisecond)}, "claim_ttl_ms"},
		{stick.PolicyUpdate{WaitMaxWait: d(time.Hour)}, "wait_for_turn_max_wait_ms"},
		{stick.PolicyUpdate{PresenceTTL: d(10 * time.Second)}, "presence_ttl_ms"},
	} {
		_, err := e.svc.SetPolicy(e.ctx, a, room, tc.u)
		if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != tc.field {
			t.Fatalf("field %v, want %s: %s", se.Details["field"], tc.field, se.Message)
		}
	}
	// Zero resets a field to the default.
	p, err = e.svc.SetPolicy(e.ctx, a, room, stick.PolicyUpdate{OwnerLeaseTTL: d(0), HeartbeatInterval: d(0), ClaimTTL: d(0)})
	if err != nil || p != stick.DefaultPolicy {
		t.Fatalf("reset: %+v %v", p, err)
	}
	page, _ := e.svc.RoomEvents(e.ctx, room, 0, 0)
	n := 0
	for _, ev := range page.Events {
		if ev.Type == stick.EventPolicy {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("want 2 policy events (rejections write nothing), got %d", n)
	}
}

func TestReorderMembers(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	ms, err := e.svc.ReorderMembers(e.ctx, a, room, []string{"c", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].AgentID != "c" || ms[1].AgentID != "a" || ms[2].AgentID != "b" {
		t.Fatalf("order: %+v", ms)
	}
	// Sequence now c -> a -> b: a releases to b.
	if rel := e.release(a, e.claim(a, room).Lease(), "x"); rel.ReservedFor != "b" {
		t.Fatalf("after reorder: %+v", rel)
	}
	_, err = e.svc.ReorderMembers(e.ctx, a, room, []string{"a", "a"})
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.ReorderMembers(e.ctx, a, room, []string{"z"})
	wantCode(t, err, stick.CodeUnknownMember)
	_, err = e.svc.ReorderMembers(e.ctx, a, room, nil)
	wantCode(t, err, stick.CodeInvalidArgument)
}
