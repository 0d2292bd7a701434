package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// Every tool, in the order an agent uses them, with the values a text-only
// client needs present in the text as well as in the structured content.
func TestEveryTool(t *testing.T) {
	w := newWorld(t, self(t))
	codex := w.connect("codex-mcp-client", nil)
	claude := w.connect("claude-code", nil)

	if r := ok(t, codex, "list_rooms", obj{"context_path": w.repo}); !strings.Contains(r.text, "no rooms") {
		t.Fatalf("list_rooms on an empty workspace: %s", r.text)
	}
	j := ok(t, codex, "join_path", obj{"context_path": w.repo})
	room, codexID := j.str("room_id"), j.str("agent_id")
	if !strings.HasPrefix(codexID, "codex:") || j.str("canonical_path") != w.repo || j.str("next_step") == "" {
		t.Fatalf("join: %v", j.data)
	}
	for _, want := range []string{room, codexID, "wait_for_turn", "heartbeat every 5m (heartbeat_interval_ms 300000), lease 45m, claim 20m, presence 4h, wait 30s"} {
		if !strings.Contains(j.text, want) {
			t.Fatalf("join text lacks %q: %s", want, j.text)
		}
	}
	if p, _ := j.data["policy"].(map[string]any); p["heartbeat_interval_ms"] != float64(300000) {
		t.Fatalf("join must return the effective policy in ms: %v", j.data["policy"])
	}
	if tmpl, _ := j.data["handoff_template"].(map[string]any); tmpl["next_action"] == nil {
		t.Fatalf("join must return the handoff template: %v", j.data)
	}
	claudeID := ok(t, claude, "join_path", obj{"context_path": w.repo}).str("agent_id")
	if !strings.HasPrefix(claudeID, "claude-code:") {
		t.Fatalf("claude id: %s", claudeID)
	}

	first := ok(t, codex, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if first.str("status") != "your_turn" || first.str("agent_id") != codexID || first.data["handoff"] != nil {
		t.Fatalf("first claim: %v", first.data)
	}
	for _, want := range []string{"your_turn", room, codexID, first.str("lease_id"), "turn_id 1", "no handoff", "heartbeat("} {
		if !strings.Contains(first.text, want) {
			t.Fatalf("your_turn text lacks %q: %s", want, first.text)
		}
	}
	hb := ok(t, codex, "heartbeat", lease(first))
	if hb.num("turn_id") != 1 || !strings.Contains(hb.text, "lease renewed") {
		t.Fatalf("heartbeat: %v %s", hb.data, hb.text)
	}
	ok(t, claude, "append_note", obj{"room_id": room, "text": "CI is red on main"})
	nw := ok(t, claude, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if nw.str("status") != "not_yet" || nw.str("current_owner") != codexID || !strings.Contains(nw.text, "held by "+codexID) {
		t.Fatalf("not_yet: %v %s", nw.data, nw.text)
	}

	h := obj{
		"status": "wrote the parser", "next_action": "review error paths",
		"artifacts":      []any{obj{"path": "parse.go", "lines": []int{40, 95}, "role": "review", "note": "error paths"}},
		"open_questions": []string{"keep the old API?"}, "do_not": []string{"touch go.mod"},
	}
	rel := ok(t, codex, "release_stick", with(lease(first), "handoff", h))
	if rel.str("reserved_for") != claudeID || rel.str("room_state") != "reserved" || !strings.Contains(rel.text, "reserved for "+claudeID) {
		t.Fatalf("release: %v %s", rel.data, rel.text)
	}
	second := ok(t, claude, "wait_for_turn", obj{"room_id": room})
	if second.str("status") != "your_turn" || second.str("reason") != "sequence" || second.str("from_agent_id") != codexID {
		t.Fatalf("second: %v", second.data)
	}
	for _, want := range []string{"wrote the parser", "review error paths", "parse.go:40-95", "keep the old API?", "touch go.mod", "handoff from " + codexID} {
		if !strings.Contains(second.text, want) {
			t.Fatalf("the handoff text lacks %q: %s", want, second.text)
		}
	}
	pass := ok(t, claude, "pass_stick", with(lease(second), "to_agent_id", codexID, "handoff", handoff("reviewed")))
	if pass.str("reserved_for") != codexID {
		t.Fatalf("pass: %v", pass.data)
	}
	third := ok(t, codex, "wait_for_turn", obj{"room_id": room})
	if third.str("reason") != "direct_pass" {
		t.Fatalf("third: %v", third.data)
	}

	st := ok(t, claude, "get_room_state", obj{"room_id": room})
	if st.str("state") != "owned" || st.str("owner") != codexID || !strings.Contains(st.text, "held by "+codexID) {
		t.Fatalf("state: %v %s", st.data, st.text)
	}
	ev := ok(t, claude, "get_room_events", obj{"room_id": room, "after": 0, "limit": 3})
	if evs, _ := ev.data["events"].([]any); len(evs) != 3 || ev.data["has_more"] != true {
		t.Fatalf("events page: %v", ev.data)
	}
	all := ok(t, claude, "get_room_events", obj{"room_id": room})
	if !strings.Contains(all.text, "release by "+codexID) || !strings.Contains(all.text, "CI is red on main") {
		t.Fatalf("events text: %s", all.text)
	}

	fails(t, claude, "set_room_policy", obj{"room_id": room, "claim_ttl_ms": 60000}, stick.CodeStickHeld) // only the holder, while held
	pol := ok(t, codex, "set_room_policy", obj{"room_id": room, "claim_ttl_ms": 60000})
	if p, _ := pol.data["policy"].(map[string]any); p["claim_ttl_ms"] != float64(60000) {
		t.Fatalf("policy: %v", pol.data)
	}
	re := ok(t, claude, "reorder_members", obj{"room_id": room, "agent_ids": []string{claudeID}})
	if ms, _ := re.data["members"].([]any); len(ms) != 2 || ms[0].(map[string]any)["agent_id"] != claudeID {
		t.Fatalf("reorder: %v", re.data)
	}
	rooms := ok(t, claude, "list_rooms", obj{"context_path": w.repo})
	if rs, _ := rooms.data["rooms"].([]any); len(rs) != 1 || !strings.Contains(rooms.text, room) {
		t.Fatalf("list: %v", rooms.data)
	}
	ok(t, codex, "release_stick", with(lease(third), "handoff", handoff("all done")))
	cl := ok(t, codex, "close_room", obj{"room_id": room, "reason": "shipped", "conclusion": "v1 is out"})
	if cl.data["revised"] != false || !strings.Contains(cl.text, "closed room_id "+room) {
		t.Fatalf("close: %v %s", cl.data, cl.text)
	}
	if r := ok(t, claude, "wait_for_turn", obj{"room_id": room}); r.str("status") != "closed" {
		t.Fatalf("closed: %v", r.data)
	}
	// leave_path on an open room.
	j2 := ok(t, claude, "join_path", obj{"context_path": w.repo})
	lv := ok(t, claude, "leave_path", obj{"room_id": j2.str("room_id")})
	if lv.data["left"] != true {
		t.Fatalf("leave: %v", lv.data)
	}
}

// Every error code a tool can return arrives as an isError result with the
// code, message and details of the core error.
func TestErrorCodes(t *testing.T) {
	w := newWorld(t, self(t))
	a := w.connect("codex", nil)
	b := w.connect("gemini-cli", nil)
	room := ok(t, a, "join_path", obj{"context_path": w.repo}).str("room_id")
	bID := ok(t, b, "join_path", obj{"context_path": w.repo}).str("agent_id")

	// invalid_argument: unknown field, wrong type, missing value, bad JSON-level shapes.
	if r := fails(t, a, "wait_for_turn", obj{"room_id": room, "agent_id": "me"}, stick.CodeInvalidArgument); r.errDetail("field") != "agent_id" {
		t.Fatal(r.text)
	}
	if r := fails(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": "soon"}, stick.CodeInvalidArgument); r.errDetail("field") != "max_wait_ms" {
		t.Fatal(r.text)
	}
	if r := fails(t, a, "heartbeat", obj{"room_id": room}, stick.CodeInvalidArgument); r.errDetail("field") != "lease_id" {
		t.Fatal(r.text)
	}
	if r := fails(t, a, "join_path", obj{"context_path": "/no/such/dir"}, stick.CodeInvalidArgument); r.errDetail("field") != "context_path" {
		t.Fatal(r.text)
	}
	fails(t, a, "set_room_policy", obj{"room_id": room, "heartbeat_interval_ms": 3600000}, stick.CodeInvalidArgument)
	fails(t, a, "get_room_state", obj{"room_id": "room_nope"}, stick.CodeRoomNotFound)
	fails(t, w.connect("stranger", nil), "wait_for_turn", obj{"room_id": room}, stick.CodeUnknownMember)

	first := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	r := fails(t, a, "release_stick", with(lease(first), "handoff", obj{"status": "did", "next_action": " "}), stick.CodeInvalidHandoff)
	if r.errDetail("field") != "next_action" {
		t.Fatal(r.text)
	}
	r = fails(t, a, "release_stick", with(lease(first), "handoff", obj{"status": "s", "next_action": "n",
		"artifacts": []any{obj{"path": "a.go", "lines": []int{9, 3}, "role": "edit"}}}), stick.CodeInvalidHandoff)
	if r.errDetail("field") != "artifacts[0].lines" {
		t.Fatal(r.text)
	}
	r = fails(t, a, "heartbeat", with(lease(first), "expected_turn_id", 9), stick.CodeTurnMismatch)
	if r.errDetail("current_turn_id") != float64(1) {
		t.Fatal(r.text)
	}
	r = fails(t, b, "heartbeat", lease(first), stick.CodeStaleLease)
	if r.errDetail("current_owner") == nil || !strings.Contains(r.text, "current_owner") {
		t.Fatalf("stale_lease must carry the current owner: %s", r.text)
	}
	fails(t, a, "pass_stick", with(lease(first), "to_agent_id", "nobody", "handoff", handoff("x")), stick.CodeUnknownMember)
	fails(t, b, "takeover_stick", obj{"room_id": room, "expected_turn_id": 1, "reason": "impatient"}, stick.CodeTakeoverNotAvailable)
	fails(t, a, "leave_path", obj{"room_id": room}, stick.CodeStickHeld)
	fails(t, b, "close_room", obj{"room_id": room}, stick.CodeStickHeld)

	ok(t, a, "release_stick", with(lease(first), "handoff", handoff("for b")))
	w.clock.Advance(21 * time.Minute)
	ok(t, w.connect("opencode", nil), "join_path", obj{"context_path": w.repo}) // another active member
	r = fails(t, a, "takeover_stick", obj{"room_id": room, "expected_turn_id": 1, "reason": "claim timeout"}, stick.CodeTakeoverIneligible)
	if r.errDetail("reason") != "claim_timeout" {
		t.Fatal(r.text)
	}
	_ = bID
	ok(t, a, "close_room", obj{"room_id": room})
	fails(t, a, "append_note", obj{"room_id": room, "text": "late"}, stick.CodeRoomClosed)
}

func TestIdentity(t *testing.T) {
	harness := self(t)
	w := newWorld(t, harness)
	cs := w.connect("claude-code", nil)
	j := ok(t, cs, "join_path", obj{"context_path": w.repo, "agent_id_override": "tester"})
	if j.str("agent_id") != "tester" {
		t.Fatalf("override: %v", j.data)
	}
	room := j.str("room_id")
	// The override holds for later calls in the room it joined.
	if r := ok(t, cs, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}); r.str("agent_id") != "tester" {
		t.Fatalf("override must apply to later calls: %v", r.data)
	}
	// Another connection of the same harness is not affected: it is a
	// second live instance of the derived id, a member of its own.
	if r := ok(t, w.connect("claude-code", nil), "join_path", obj{"context_path": w.repo}); r.str("agent_id") != identity.InstanceID("claude-code", harness, "", 2) {
		t.Fatalf("a new connection derives its own id: %v", r.data)
	}
	st := ok(t, cs, "get_room_state", obj{"room_id": room})
	for _, m := range st.data["members"].([]any) {
		mm := m.(map[string]any)
		if mm["session_kind"] != "mcp_harness" || !strings.HasPrefix(mm["display_name"].(string), "claude-code") {
			t.Fatalf("member facts: %v", mm)
		}
	}
}
