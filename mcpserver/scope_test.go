package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// otherHarness returns a second server on w's service whose harness is
// this test's parent process, so its connections are another harness
// process than w's: package stick's same-process exemption does not apply
// between the two.
func otherHarness(t *testing.T, w *world) (*mcpserver.Server, procid.Identity) {
	t.Helper()
	parent, err := procid.Parent()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Config{Service: w.svc, Harness: parent, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, parent
}

// from returns the author of an append_note result's event.
func from(r result) any {
	e, _ := r.data["event"].(map[string]any)
	return e["from_agent_id"]
}

// stateJSON returns get_room_state of room as JSON, to compare.
func stateJSON(t *testing.T, cs *mcp.ClientSession, room string) (string, int64) {
	t.Helper()
	r := ok(t, cs, "get_room_state", obj{"room_id": room})
	b, err := json.Marshal(r.data)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), r.num("last_event_seq")
}

// An agent_id_override that join_path approves in one room is that
// connection's identity there only. An attacker in another harness
// process overrides the name of a member of room X while joining another
// repository's room Y, which has no such member: the join succeeds, but
// every call it then makes on room X acts as its own derived identity and
// is refused, nothing is written in X, and the member keeps its turn.
func TestOverrideDoesNotLeaveItsRoom(t *testing.T) {
	w := newWorld(t, self(t))
	other, parent := otherHarness(t, w)
	a := w.connect("claude-code", nil)
	b := w.connect("codex", nil)
	j := ok(t, a, "join_path", obj{"context_path": w.repo})
	room, aID := j.str("room_id"), j.str("agent_id")
	ok(t, b, "join_path", obj{"context_path": w.repo})
	first := ok(t, b, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if first.str("status") != "your_turn" {
		t.Fatalf("b's claim: %v", first.data)
	}
	if r := ok(t, b, "pass_stick", with(lease(first), "to_agent_id", aID, "handoff", handoff("over to a"))); r.str("reserved_for") != aID {
		t.Fatalf("pass: %v", r.data)
	}

	c := connectTo(t, other, "gemini-cli")
	cID := identity.AgentID("gemini-cli", parent, "")
	y := ok(t, c, "join_path", obj{"context_path": mkRepo(t), "agent_id_override": aID})
	if y.str("agent_id") != aID || y.str("room_id") == room {
		t.Fatalf("the override join in another repository: %v", y.data)
	}
	if n := ok(t, c, "append_note", obj{"room_id": y.str("room_id"), "text": "mine"}); from(n) != aID {
		t.Fatalf("the override is in force in the room it joined: %v", n.data)
	}

	before, seq := stateJSON(t, b, room)
	doc := ok(t, b, "read_room_doc", obj{"room_id": room}).num("version")
	for _, tc := range []struct {
		tool string
		args obj
	}{
		{"wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}},
		{"close_room", obj{"room_id": room, "reason": "mine now", "conclusion": "taken"}},
		{"update_room_doc", obj{"room_id": room, "content": "# taken", "expected_version": doc}},
		{"append_room_doc", obj{"room_id": room, "text": "taken", "section": "Decisions"}},
		{"append_note", obj{"room_id": room, "text": "taken"}},
		{"sync", obj{"room_id": room}},
		{"leave_path", obj{"room_id": room}},
		{"set_room_policy", obj{"room_id": room, "claim_ttl_ms": 1000}},
		{"reorder_members", obj{"room_id": room, "agent_ids": []string{aID}}},
		{"takeover_stick", obj{"room_id": room, "expected_turn_id": first.num("turn_id"), "reason": "mine now"}},
	} {
		r := fails(t, c, tc.tool, tc.args, stick.CodeUnknownMember)
		if !strings.Contains(r.text, cID+" is not a member") {
			t.Fatalf("%s must act as the derived identity %s: %s", tc.tool, cID, r.text)
		}
	}
	// A later join of room X passes the override on, and package stick
	// checks it there: the name is a member's, and c holds no token for it.
	if r := fails(t, c, "join_path", obj{"context_path": w.repo}, stick.CodeAgentIDInUse); r.errDetail("room_id") != room || r.errDetail("agent_id") != aID {
		t.Fatalf("the later join: %s", r.text)
	}
	if after, afterSeq := stateJSON(t, b, room); after != before || afterSeq != seq {
		t.Fatalf("room %s changed (last_event_seq %d -> %d):\n%s\n%s", room, seq, afterSeq, before, after)
	}
	if v := ok(t, b, "read_room_doc", obj{"room_id": room}).num("version"); v != doc {
		t.Fatalf("the document changed: version %d -> %d", doc, v)
	}

	// The member keeps its turn, and its lease is no use to the attacker.
	mine := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if mine.str("status") != "your_turn" || mine.str("agent_id") != aID || mine.str("reason") != "direct_pass" {
		t.Fatalf("a's claim: %v", mine.data)
	}
	before, seq = stateJSON(t, b, room)
	fails(t, c, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}, stick.CodeUnknownMember)
	for _, tool := range []string{"heartbeat", "release_stick", "pass_stick"} {
		args := lease(mine)
		switch tool {
		case "release_stick":
			args = with(args, "handoff", handoff("stolen"))
		case "pass_stick":
			args = with(args, "to_agent_id", aID, "handoff", handoff("stolen"))
		}
		if r := fails(t, c, tool, args, stick.CodeStaleLease); r.errDetail("current_owner") != aID {
			t.Fatalf("%s with the member's lease: %s", tool, r.text)
		}
	}
	if after, afterSeq := stateJSON(t, b, room); after != before || afterSeq != seq {
		t.Fatalf("room %s changed (last_event_seq %d -> %d):\n%s\n%s", room, seq, afterSeq, before, after)
	}
	ok(t, a, "heartbeat", lease(mine))
}

// An agent_id_override is the connection's identity for every tool in the
// room it joined, and a later join_path of that room keeps it.
func TestOverrideInItsRoom(t *testing.T) {
	w := newWorld(t, self(t))
	w.withoutLeaseKeeping(self(t)) // the peer's lease must run out below
	peer := w.connect("codex", nil)
	pj := ok(t, peer, "join_path", obj{"context_path": w.repo})
	room, peerID := pj.str("room_id"), pj.str("agent_id")
	o := w.connect("claude-code", nil)
	derived := identity.AgentID("claude-code", self(t), "")
	if j := ok(t, o, "join_path", obj{"context_path": w.repo, "agent_id_override": "tester"}); j.str("agent_id") != "tester" || j.str("room_id") != room {
		t.Fatalf("join: %v", j.data)
	}

	turn := ok(t, o, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if turn.str("status") != "your_turn" || turn.str("agent_id") != "tester" {
		t.Fatalf("wait_for_turn: %v", turn.data)
	}
	ok(t, o, "heartbeat", lease(turn))
	if n := ok(t, o, "append_note", obj{"room_id": room, "text": "working"}); from(n) != "tester" {
		t.Fatalf("append_note: %v", n.data)
	}
	ok(t, o, "sync", obj{"room_id": room})
	ok(t, o, "set_room_policy", obj{"room_id": room, "claim_ttl_ms": 60000})
	if r := ok(t, o, "reorder_members", obj{"room_id": room, "agent_ids": []string{"tester", peerID}}); r.data["members"].([]any)[0].(map[string]any)["agent_id"] != "tester" {
		t.Fatalf("reorder_members: %v", r.data)
	}
	if d := ok(t, o, "update_room_doc", obj{"room_id": room, "content": "# plan", "expected_version": 0}); d.str("author") != "tester" {
		t.Fatalf("update_room_doc: %v", d.data)
	}
	if d := ok(t, o, "append_room_doc", obj{"room_id": room, "text": "use tester", "section": "Decisions"}); d.str("author") != "tester" {
		t.Fatalf("append_room_doc: %v", d.data)
	}
	if r := ok(t, o, "release_stick", with(lease(turn), "handoff", handoff("planned"))); r.str("reserved_for") != peerID {
		t.Fatalf("release_stick: %v", r.data)
	}
	pt := ok(t, peer, "wait_for_turn", obj{"room_id": room})
	ok(t, peer, "pass_stick", with(lease(pt), "to_agent_id", "tester", "handoff", handoff("back to you")))

	// A later join of the room, without the override, keeps it.
	if j := ok(t, o, "join_path", obj{"context_path": w.repo}); j.str("agent_id") != "tester" || j.str("room_id") != room || j.data["new_member"] != false {
		t.Fatalf("the later join: %v", j.data)
	}
	again := ok(t, o, "wait_for_turn", obj{"room_id": room})
	if again.str("agent_id") != "tester" || again.str("reason") != "direct_pass" {
		t.Fatalf("wait_for_turn after the later join: %v", again.data)
	}
	ok(t, o, "release_stick", with(lease(again), "handoff", handoff("done")))
	pt = ok(t, peer, "wait_for_turn", obj{"room_id": room})
	w.clock.Advance(46 * time.Minute) // the peer's lease expires
	to := ok(t, o, "takeover_stick", obj{"room_id": room, "expected_turn_id": pt.num("turn_id"), "reason": "peer lease expired"})
	if to.str("agent_id") != "tester" {
		t.Fatalf("takeover_stick: %v", to.data)
	}
	ok(t, o, "pass_stick", with(lease(to), "to_agent_id", peerID, "handoff", handoff("yours")))
	if l := ok(t, o, "leave_path", obj{"room_id": room}); l.str("agent_id") != "tester" || l.data["left"] != true {
		t.Fatalf("leave_path: %v", l.data)
	}
	ok(t, o, "join_path", obj{"context_path": w.repo})
	ok(t, o, "close_room", obj{"room_id": room, "reason": "done", "conclusion": "shipped"})

	page, err := w.svc.RoomEvents(w.ctx, room, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Events {
		if e.From != "tester" && e.From != peerID {
			t.Fatalf("event %d (%s) by %s: the connection must act as tester in its room", e.Seq, e.Type, e.From)
		}
		if e.Type == stick.EventClose && e.From != "tester" {
			t.Fatalf("the close is by %s", e.From)
		}
	}
	st := ok(t, peer, "get_room_state", obj{"room_id": room})
	for _, m := range st.data["members"].([]any) {
		if id := m.(map[string]any)["agent_id"]; id == derived {
			t.Fatalf("the derived identity %s joined the room: %v", derived, st.data["members"])
		}
	}
}

// A reclaim_token makes a connection of another harness process that
// member in the room the token belongs to, for every tool, and a later
// join_path of that room keeps it, even after the member's process facts
// moved elsewhere; in a room it has not joined the connection is itself.
func TestReclaimInItsRoom(t *testing.T) {
	w := newWorld(t, self(t))
	other, parent := otherHarness(t, w)
	peer := w.connect("codex", nil)
	pj := ok(t, peer, "join_path", obj{"context_path": w.repo})
	room, peerID := pj.str("room_id"), pj.str("agent_id")
	a := w.connect("claude-code", nil)
	token := ok(t, a, "join_path", obj{"context_path": w.repo, "agent_id_override": "keeper"}).str("reclaim_token")

	r := connectTo(t, other, "claude-code")
	if j := ok(t, r, "join_path", obj{"context_path": w.repo, "reclaim_token": token}); j.str("agent_id") != "keeper" || j.data["reclaimed"] != true {
		t.Fatalf("reclaim: %v", j.data)
	}
	pt := ok(t, peer, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	ok(t, peer, "pass_stick", with(lease(pt), "to_agent_id", "keeper", "handoff", handoff("for keeper")))
	turn := ok(t, r, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if turn.str("status") != "your_turn" || turn.str("agent_id") != "keeper" {
		t.Fatalf("wait_for_turn: %v", turn.data)
	}
	ok(t, r, "heartbeat", lease(turn))
	if n := ok(t, r, "append_note", obj{"room_id": room, "text": "back"}); from(n) != "keeper" {
		t.Fatalf("append_note: %v", n.data)
	}
	if d := ok(t, r, "update_room_doc", obj{"room_id": room, "content": "# keeper", "expected_version": 0}); d.str("author") != "keeper" {
		t.Fatalf("update_room_doc: %v", d.data)
	}
	ok(t, r, "sync", obj{"room_id": room})
	if rel := ok(t, r, "release_stick", with(lease(turn), "handoff", handoff("kept"))); rel.str("reserved_for") != peerID {
		t.Fatalf("release_stick: %v", rel.data)
	}

	// The first connection joins again and takes keeper's process facts
	// back with its token; a later join of the room by r proves keeper
	// with the token r holds for it there.
	if j := ok(t, a, "join_path", obj{"context_path": w.repo}); j.str("agent_id") != "keeper" {
		t.Fatalf("a's later join: %v", j.data)
	}
	if j := ok(t, r, "join_path", obj{"context_path": w.repo}); j.str("agent_id") != "keeper" || j.str("room_id") != room {
		t.Fatalf("r's later join: %v", j.data)
	}
	if n := ok(t, r, "append_note", obj{"room_id": room, "text": "still keeper"}); from(n) != "keeper" {
		t.Fatalf("append_note after the later join: %v", n.data)
	}

	// In a room r has not joined it is its derived self; joining one
	// passes keeper on as an override, which that room's members check.
	derived := identity.AgentID("claude-code", parent, "")
	repo2 := mkRepo(t)
	nested := ok(t, peer, "join_path", obj{"context_path": repo2}).str("room_id")
	if f := fails(t, r, "append_note", obj{"room_id": nested, "text": "who?"}, stick.CodeUnknownMember); !strings.Contains(f.text, derived+" is not a member") {
		t.Fatalf("a room r has not joined: %s", f.text)
	}
	if j := ok(t, r, "join_path", obj{"context_path": repo2}); j.str("agent_id") != "keeper" || j.str("room_id") != nested {
		t.Fatalf("r's join of another room: %v", j.data)
	}
	page, err := w.svc.RoomEvents(w.ctx, nested, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := page.Events[len(page.Events)-1]; last.From != "keeper" || !strings.Contains(string(last.Data), `"override":true`) {
		t.Fatalf("the join of another room must be flagged as overridden: %+v", last)
	}
}
