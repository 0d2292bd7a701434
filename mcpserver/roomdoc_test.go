package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// docEvents returns the doc events among a sync's or a page's events.
func docEvents(t *testing.T, r result, key string) []map[string]any {
	t.Helper()
	list, _ := r.data[key].([]any)
	var out []map[string]any
	for _, e := range list {
		if ev := e.(map[string]any); ev["event_type"] == "doc" {
			out = append(out, ev)
		}
	}
	return out
}

// TestRoomDocTools: the document through its four tools, in the order a
// model uses them: read the empty document, write it, append a decision
// without the stick, lose a race with version_conflict and its details,
// merge and retry, list the history, see the writes as doc events in sync,
// and find the conclusion of close_room in the Conclusion section.
func TestRoomDocTools(t *testing.T) {
	w := newWorld(t, self(t))
	a, b := w.connect("codex-mcp-client", nil), w.connect("claude-code", nil)
	ja := ok(t, a, "join_path", obj{"context_path": w.repo})
	room, aID := ja.str("room_id"), ja.str("agent_id")
	bID := ok(t, b, "join_path", obj{"context_path": w.repo}).str("agent_id")
	ok(t, b, "sync", obj{"room_id": room}) // b's cursor past the joins

	empty := ok(t, a, "read_room_doc", obj{"room_id": room})
	if empty.num("version") != 0 || empty.str("content") != "" || !strings.Contains(empty.text, "no document yet") ||
		!strings.Contains(empty.str("next_step"), "expected_version 0") {
		t.Fatalf("the never-written document: %v %s", empty.data, empty.text)
	}
	if h := ok(t, a, "room_doc_history", obj{"room_id": room}); len(h.data["versions"].([]any)) != 0 || !strings.Contains(h.text, "never written") {
		t.Fatalf("empty history: %v %s", h.data, h.text)
	}

	plan := "# Plan\n\n- parse the input\n"
	v1 := ok(t, a, "update_room_doc", obj{"room_id": room, "content": plan, "expected_version": 0})
	if v1.num("version") != 1 || v1.str("author") != aID || v1.str("op") != "update" || v1.num("size") != int64(len(plan)) ||
		v1.num("event_seq") == 0 || !strings.Contains(v1.text, "now version 1") || !strings.Contains(v1.str("next_step"), "expected_version 1") {
		t.Fatalf("first update: %v %s", v1.data, v1.text)
	}
	if _, has := v1.data["content"]; has {
		t.Fatalf("a write returns the version, not the content: %v", v1.data)
	}
	v2 := ok(t, b, "append_room_doc", obj{"room_id": room, "text": "- ship on friday", "section": "Decisions"})
	if v2.num("version") != 2 || v2.str("author") != bID || v2.str("op") != "append" {
		t.Fatalf("append: %v %s", v2.data, v2.text)
	}
	cur := ok(t, a, "read_room_doc", obj{"room_id": room})
	content := cur.str("content")
	if cur.num("version") != 2 || cur.str("author") != bID || !strings.Contains(content, plan) ||
		!strings.Contains(content, "## Decisions") || !strings.Contains(content, "- ship on friday") {
		t.Fatalf("current document: %v", cur.data)
	}
	for _, want := range []string{content, "version 2: append by " + bID, "expected_version 2", "Decisions"} {
		if !strings.Contains(cur.text, want) {
			t.Fatalf("read text lacks %q: %s", want, cur.text)
		}
	}
	if old := ok(t, b, "read_room_doc", obj{"room_id": room, "version": 1}); old.str("content") != plan || old.str("op") != "update" ||
		!strings.Contains(old.str("next_step"), "read the current one") {
		t.Fatalf("version 1: %v", old.data)
	}

	// a rewrites from version 1, which b's append has made stale.
	conflict := fails(t, a, "update_room_doc", obj{"room_id": room, "content": plan + "- review\n", "expected_version": 1}, stick.CodeVersionConflict)
	if conflict.errDetail("current_version") != float64(2) || conflict.errDetail("expected_version") != float64(1) ||
		conflict.errDetail("updated_by") != bID || conflict.errDetail("updated_at") == nil || !strings.Contains(conflict.text, `"current_version":2`) {
		t.Fatalf("version_conflict must carry the current version: %v %s", conflict.data, conflict.text)
	}
	merged := strings.Replace(content, "- parse the input\n", "- parse the input\n- review\n", 1)
	v3 := ok(t, a, "update_room_doc", obj{"room_id": room, "content": merged, "expected_version": 2})
	if v3.num("version") != 3 {
		t.Fatalf("retry: %v", v3.data)
	}
	same := ok(t, a, "update_room_doc", obj{"room_id": room, "content": merged, "expected_version": 3})
	if same.num("version") != 3 || !strings.Contains(same.text, "unchanged") {
		t.Fatalf("an update to the same content writes nothing: %v %s", same.data, same.text)
	}

	hist := ok(t, b, "room_doc_history", obj{"room_id": room})
	versions, _ := hist.data["versions"].([]any)
	if len(versions) != 3 {
		t.Fatalf("history: %v", hist.data)
	}
	for i, want := range []struct{ author, op string }{{aID, "update"}, {bID, "append"}, {aID, "update"}} {
		v := versions[i].(map[string]any)
		if v["version"] != float64(i+1) || v["author"] != want.author || v["op"] != want.op || v["event_seq"] == nil || v["size"] == nil || v["created_at"] == nil {
			t.Fatalf("history[%d]: %v", i, v)
		}
		if _, has := v["content"]; has {
			t.Fatalf("history lists versions without content: %v", v)
		}
	}
	if !strings.Contains(hist.text, "3 versions, oldest first") || !strings.Contains(hist.text, "version 2: append by "+bID) {
		t.Fatalf("history text: %s", hist.text)
	}

	// Every write is a doc event: b, which wrote version 2 itself, gets a's two.
	synced := ok(t, b, "sync", obj{"room_id": room})
	docs := docEvents(t, synced, "received")
	if len(docs) != 2 || docs[0]["from_agent_id"] != aID || docs[1]["from_agent_id"] != aID {
		t.Fatalf("b's sync must bring a's doc events: %v", synced.data)
	}
	if d, _ := docs[0]["data"].(map[string]any); d["version"] != float64(1) || d["op"] != "update" {
		t.Fatalf("doc event data: %v", docs[0])
	}
	if !strings.Contains(synced.text, "doc by "+aID+" (document version 1, update)") {
		t.Fatalf("sync text: %s", synced.text)
	}
	all := ok(t, a, "sync", obj{"room_id": room, "include_self": true, "cursor_reset": true})
	if docs := docEvents(t, all, "received"); len(docs) != 3 || docs[1]["text"] != "- ship on friday" {
		t.Fatalf("every write is a doc event, an append with its text: %v", all.data)
	} else if d, _ := docs[1]["data"].(map[string]any); d["section"] != "Decisions" {
		t.Fatalf("an append's section: %v", docs[1])
	}

	cl := ok(t, a, "close_room", obj{"room_id": room, "reason": "shipped", "conclusion": "v1 ships on friday."})
	if cl.num("doc_version") != 4 || !strings.Contains(cl.text, "Conclusion section, version 4") {
		t.Fatalf("close: %v %s", cl.data, cl.text)
	}
	final := ok(t, b, "read_room_doc", obj{"room_id": room})
	if final.num("version") != 4 || final.str("op") != "conclusion" || !strings.Contains(final.str("content"), "## Conclusion") ||
		!strings.Contains(final.str("content"), "v1 ships on friday.") || !strings.Contains(final.str("content"), "- review") {
		t.Fatalf("the conclusion must be in the document: %v", final.data)
	}
	ev := ok(t, b, "get_room_events", obj{"room_id": room, "after": final.num("event_seq") - 1, "limit": 1})
	if !strings.Contains(ev.text, "close by "+aID) || !strings.Contains(ev.text, "conclusion written to document version 4") {
		t.Fatalf("the close event names the document version: %s", ev.text)
	}
	if h := ok(t, b, "room_doc_history", obj{"room_id": room}); len(h.data["versions"].([]any)) != 4 {
		t.Fatalf("history after close: %v", h.data)
	}
	if r := fails(t, a, "update_room_doc", obj{"room_id": room, "content": "late", "expected_version": 4}, stick.CodeRoomClosed); r.errDetail("room_id") != room {
		t.Fatalf("room_closed: %s", r.text)
	}
	fails(t, b, "append_room_doc", obj{"room_id": room, "text": "late"}, stick.CodeRoomClosed)
}

// TestRoomDocErrors: each rejection of the document tools, with the field
// an invalid_argument names; reading needs no membership, writing does.
func TestRoomDocErrors(t *testing.T) {
	w := newWorld(t, self(t))
	a := w.connect("codex", nil)
	room := ok(t, a, "join_path", obj{"context_path": w.repo}).str("room_id")
	ok(t, a, "append_room_doc", obj{"room_id": room, "text": "first"})
	stranger := w.connect("stranger", nil)

	for _, c := range []struct {
		tool, field string
		args        obj
	}{
		{"read_room_doc", "room_id", obj{}},
		{"read_room_doc", "version", obj{"room_id": room, "version": -1}},
		{"read_room_doc", "version", obj{"room_id": room, "version": 2}},
		{"read_room_doc", "version", obj{"room_id": room, "version": "1"}},
		{"read_room_doc", "agent_id", obj{"room_id": room, "agent_id": "me"}},
		{"update_room_doc", "content", obj{"room_id": room, "expected_version": 1}},
		{"update_room_doc", "content", obj{"room_id": room, "content": nil, "expected_version": 1}},
		{"update_room_doc", "content", obj{"room_id": room, "content": strings.Repeat("x", stick.MaxDocLen+1), "expected_version": 1}},
		{"update_room_doc", "expected_version", obj{"room_id": room, "content": "x"}},
		{"update_room_doc", "expected_version", obj{"room_id": room, "content": "x", "expected_version": -1}},
		{"update_room_doc", "expected_version", obj{"room_id": room, "content": "x", "expected_version": 1.5}},
		{"update_room_doc", "room_id", obj{"content": "x", "expected_version": 1}},
		{"append_room_doc", "text", obj{"room_id": room, "text": " "}},
		{"append_room_doc", "text", obj{"room_id": room}},
		{"append_room_doc", "section", obj{"room_id": room, "text": "x", "section": "##"}},
		{"append_room_doc", "section", obj{"room_id": room, "text": "x", "section": "a\nb"}},
		{"append_room_doc", "section", obj{"room_id": room, "text": "x", "section": 3}},
		{"room_doc_history", "room_id", obj{}},
		{"room_doc_history", "roomid", obj{"roomid": room}},
	} {
		if r := fails(t, a, c.tool, c.args, stick.CodeInvalidArgument); r.errDetail("field") != c.field {
			t.Errorf("%s %v: field %v, want %s: %s", c.tool, c.args, r.errDetail("field"), c.field, r.text)
		}
	}
	if r := fails(t, a, "read_room_doc", obj{"room_id": room, "version": 2}, stick.CodeInvalidArgument); r.errDetail("current_version") != float64(1) {
		t.Fatalf("a version past the current one names the current: %s", r.text)
	}
	for tool, args := range map[string]obj{
		"read_room_doc":    {"room_id": "room_nope"},
		"room_doc_history": {"room_id": "room_nope"},
		"update_room_doc":  {"room_id": "room_nope", "content": "x", "expected_version": 0},
		"append_room_doc":  {"room_id": "room_nope", "text": "x"},
	} {
		fails(t, a, tool, args, stick.CodeRoomNotFound)
	}

	// Reading needs no membership; writing does.
	if r := ok(t, stranger, "read_room_doc", obj{"room_id": room}); r.str("content") != "first\n" && r.str("content") != "first" {
		t.Fatalf("a stranger reads the document: %v", r.data)
	}
	ok(t, stranger, "room_doc_history", obj{"room_id": room})
	for tool, args := range map[string]obj{
		"update_room_doc": {"room_id": room, "content": "mine", "expected_version": 1},
		"append_room_doc": {"room_id": room, "text": "mine"},
	} {
		if r := fails(t, stranger, tool, args, stick.CodeUnknownMember); r.errDetail("room_id") != room {
			t.Errorf("%s: %s", tool, r.text)
		}
	}
}
