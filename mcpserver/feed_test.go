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

// TestSyncTool: one client posts through sync's outbox, another catches up
// through sync from its server-side cursor, pages with has_more, and
// acknowledges by hand; bad arguments name their field.
func TestSyncTool(t *testing.T) {
	w := newWorld(t, self(t))
	a, b := w.connect("claude-code", nil), w.connect("codex", nil)
	room := ok(t, a, "join_path", obj{"context_path": w.repo}).str("room_id")
	ok(t, b, "join_path", obj{"context_path": w.repo})
	sent := ok(t, a, "sync", obj{"room_id": room, "outbox": []obj{
		{"text": "found the race", "message_type": "decision", "client_message_id": "d-1"},
		{"text": "see parse.go"},
	}})
	if list, _ := sent.data["sent"].([]any); len(list) != 2 || !strings.Contains(sent.text, "sent decision as event") {
		t.Fatalf("outbox: %v %s", sent.data, sent.text)
	}
	page := ok(t, b, "sync", obj{"room_id": room, "max_items": 2})
	if page.str("status") != "ready" || page.data["has_more"] != true || !strings.Contains(page.text, "2 new event(s)") {
		t.Fatalf("first page: %v %s", page.data, page.text)
	}
	rest := ok(t, b, "sync", obj{"room_id": room})
	if got, _ := rest.data["received"].([]any); len(got) != 1 || rest.data["has_more"] != false || !strings.Contains(rest.text, "see parse.go") {
		t.Fatalf("rest: %v %s", rest.data, rest.text)
	}
	if again := ok(t, b, "sync", obj{"room_id": room}); again.str("status") != "empty" {
		t.Fatalf("nothing new: %v", again.data)
	}
	ok(t, a, "append_note", obj{"room_id": room, "text": "one more"})
	held := ok(t, b, "sync", obj{"room_id": room, "auto_advance": false})
	if held2 := ok(t, b, "sync", obj{"room_id": room, "auto_advance": false}); held2.num("cursor") != held.num("cursor") {
		t.Fatalf("manual ack moved the cursor: %v then %v", held.data, held2.data)
	}
	got, _ := held.data["received"].([]any)
	ev, _ := got[0].(map[string]any)
	acked := ok(t, b, "sync", obj{"room_id": room, "auto_advance": false, "ack_through": ev["event_seq"]})
	if acked.num("cursor") != int64(ev["event_seq"].(float64)) {
		t.Fatalf("ack: %v", acked.data)
	}
	for field, args := range map[string]obj{
		"wait_seconds":       {"room_id": room, "wait_seconds": 601},
		"ack_through":        {"room_id": room, "ack_through": 1},
		"outbox[0].text":     {"room_id": room, "outbox": []obj{{"text": " "}}},
		"outbox[1].metadata": {"room_id": room, "outbox": []obj{{"text": "ok"}, {"text": "x", "metadata": []int{1}}}},
		"max_items":          {"room_id": room, "max_items": -1},
	} {
		if r := fails(t, b, "sync", args, stick.CodeInvalidArgument); r.errDetail("field") != field {
			t.Errorf("%s: field %v", field, r.errDetail("field"))
		}
	}
}
