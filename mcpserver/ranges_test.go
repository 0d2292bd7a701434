package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// Every documented range and enum is refused through MCP as the library
// refuses it: invalid_argument naming the field, with the library's
// message (the range, or the valid values); nothing is capped or accepted.
func TestRangesAndEnumsRefused(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("codex", nil)
	room := ok(t, cs, "join_path", obj{"context_path": w.repo}).str("room_id")
	for _, tc := range []struct {
		tool  string
		args  obj
		field string
		says  string
	}{
		{"wait_for_turn", obj{"room_id": room, "max_wait_ms": 600001}, "max_wait_ms", "max_wait_ms must be between 0 and 600000 (10m0s), got 600001"},
		{"wait_for_turn", obj{"room_id": room, "max_wait_ms": -1}, "max_wait_ms", "max_wait_ms must be between 0 and 600000 (10m0s), got -1"},
		{"append_note", obj{"room_id": room, "text": "x", "message_type": "questoin"}, "message_type",
			`message_type "questoin" is not a note type: use note, question, answer or decision, or a custom type that starts with "x-"`},
		{"sync", obj{"room_id": room, "outbox": []obj{{"text": "x", "message_type": "Decision"}}}, "outbox[0].message_type",
			`outbox[0].message_type "Decision" is not a note type`},
		{"sync", obj{"room_id": room, "wait_seconds": 601}, "wait_seconds", "wait_seconds must be between 0 and 600 seconds (10m0s), got 601 seconds"},
		{"sync", obj{"room_id": room, "max_items": 1001}, "max_items", "max_items must be between 0 (the default, 50) and 1000, got 1001"},
		{"get_room_events", obj{"room_id": room, "limit": 1001}, "limit", "limit must be between 0 (the default, 50) and 1000, got 1001"},
		{"search_events", obj{"query": "x", "type": "doc"}, "type",
			`type "doc" is not a kind of hit: use note, question, answer, decision, release, pass, close or document, or a custom note type (x-...)`},
		{"search_events", obj{"query": "x", "type": "bogus"}, "type", `type "bogus" is not a kind of hit`},
		{"search_events", obj{"query": "x", "limit": 201}, "limit", "limit must be between 0 (the default, 20) and 200, got 201"},
		{"set_room_policy", obj{"room_id": room, "wait_for_turn_max_wait_ms": 600001}, "wait_for_turn_max_wait_ms",
			"wait_for_turn_max_wait_ms must be between 100ms and 600000ms, got 600001ms"},
	} {
		r := fails(t, cs, tc.tool, tc.args, stick.CodeInvalidArgument)
		if r.errDetail("field") != tc.field || !strings.Contains(r.text, tc.says) {
			t.Errorf("%s %v: field %v, text %q; want field %s saying %q", tc.tool, tc.args, r.errDetail("field"), r.text, tc.field, tc.says)
		}
	}
	// The known values come as details too, for a client to show or use.
	r := fails(t, cs, "append_note", obj{"room_id": room, "text": "x", "message_type": "questoin"}, stick.CodeInvalidArgument)
	if valid, _ := r.errDetail("valid").([]any); len(valid) != 4 || valid[1] != "question" || r.errDetail("custom_prefix") != "x-" {
		t.Errorf("details of a bad message_type: valid %v, custom_prefix %v", r.errDetail("valid"), r.errDetail("custom_prefix"))
	}
	// Nothing was posted, and what is valid still is.
	if n := len(ok(t, cs, "get_room_events", obj{"room_id": room}).data["events"].([]any)); n != 1 {
		t.Errorf("refused calls posted: %d events, want the join only", n)
	}
	ok(t, cs, "append_note", obj{"room_id": room, "text": "green", "message_type": "x-ci-status"})
	if hits := ok(t, cs, "search_events", obj{"query": "green", "type": "x-ci-status"}).data["hits"].([]any); len(hits) != 1 {
		t.Errorf("a custom type is found by its type: %v", hits)
	}
}
