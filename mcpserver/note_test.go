package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestAppendNoteMessages: append_note takes a message type, the event it
// replies to, metadata and an idempotency key; a retry with the same key
// returns the first note flagged duplicate, in its structured result and
// its text; a bad field is invalid_argument naming it.
func TestAppendNoteMessages(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("claude-code", nil)
	room := ok(t, cs, "join_path", obj{"context_path": w.repo}).str("room_id")

	q := ok(t, cs, "append_note", obj{"room_id": room, "text": "keep the old flag?", "message_type": "question",
		"metadata": obj{"pr": 42}, "client_message_id": "q-1"})
	ev, _ := q.data["event"].(map[string]any)
	seq := int64(ev["event_seq"].(float64))
	if ev["message_type"] != "question" || q.data["duplicate"] != false || !strings.Contains(q.text, "question posted as event") {
		t.Fatalf("question: %v %s", q.data, q.text)
	}
	if meta, _ := ev["data"].(map[string]any); meta["pr"] != float64(42) {
		t.Fatalf("metadata not kept: %v", ev)
	}
	again := ok(t, cs, "append_note", obj{"room_id": room, "text": "keep the old flag? (retry)", "client_message_id": "q-1"})
	ev2, _ := again.data["event"].(map[string]any)
	if again.data["duplicate"] != true || int64(ev2["event_seq"].(float64)) != seq || !strings.Contains(again.text, "duplicate") {
		t.Fatalf("retry: %v %s", again.data, again.text)
	}
	ans := ok(t, cs, "append_note", obj{"room_id": room, "text": "yes", "message_type": "answer", "reply_to": seq, "metadata": nil})
	if ev3, _ := ans.data["event"].(map[string]any); int64(ev3["ref_event_seq"].(float64)) != seq {
		t.Fatalf("answer does not point at the question: %v", ans.data)
	}
	for field, args := range map[string]obj{
		"reply_to":          {"room_id": room, "text": "x", "reply_to": seq + 1000},
		"metadata":          {"room_id": room, "text": "x", "metadata": []int{1}},
		"client_message_id": {"room_id": room, "text": "x", "client_message_id": "two words"},
		"message_type":      {"room_id": room, "text": "x", "message_type": "a\nb"},
	} {
		r := fails(t, cs, "append_note", args, stick.CodeInvalidArgument)
		if r.errDetail("field") != field {
			t.Errorf("%s: field %v", field, r.errDetail("field"))
		}
	}
}
