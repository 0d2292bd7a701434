package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestHugeArgumentsRefusedShortly calls tools in process with 10 MB values
// in fields that have a size limit: each is invalid_argument naming the
// field, in a reply of a few hundred bytes.
func TestHugeArgumentsRefusedShortly(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("huge", nil)
	room := ok(t, cs, "join_path", map[string]any{"context_path": w.repo}).str("room_id")
	huge := strings.Repeat("a", 10<<20)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"join_path", map[string]any{"context_path": w.repo + "/" + huge}, "context_path"},
		{"join_path", map[string]any{"context_path": w.repo, "reclaim_token": huge}, "reclaim_token"},
		{"get_room_state", map[string]any{"room_id": huge}, "room_id"},
		{"wait_for_turn", map[string]any{"room_id": room, "cursor": huge}, "cursor"},
		{"append_note", map[string]any{"room_id": huge, "text": "hi"}, "room_id"},
		{"heartbeat", map[string]any{"room_id": room, "lease_id": huge, "expected_turn_id": 1}, "lease_id"},
	} {
		r := fails(t, cs, tc.tool, tc.args, stick.CodeInvalidArgument)
		if r.errDetail("field") != tc.field {
			t.Errorf("%s: field %v, want %s", tc.tool, r.errDetail("field"), tc.field)
		}
		b, _ := json.Marshal(r.raw)
		if len(b) > 2000 {
			t.Errorf("%s on %s: the reply is %d bytes", tc.tool, tc.field, len(b))
		}
	}
}
