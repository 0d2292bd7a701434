package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// hits returns a search result's hits.
func hits(r result) []map[string]any {
	list, _ := r.data["hits"].([]any)
	out := make([]map[string]any, len(list))
	for i, h := range list {
		out[i] = h.(map[string]any)
	}
	return out
}

// TestSearchEvents: search_events ranks the note that is about the query
// above one that mentions it, stems, filters by room, type and author,
// finds documents, needs no membership, and names the field it rejects.
func TestSearchEvents(t *testing.T) {
	w := newWorld(t, self(t))
	a, b := w.connect("codex-mcp-client", nil), w.connect("claude-code", nil)
	ja := ok(t, a, "join_path", obj{"context_path": w.repo})
	room, aID := ja.str("room_id"), ja.str("agent_id")
	bID := ok(t, b, "join_path", obj{"context_path": w.repo}).str("agent_id")
	other := mkRepo(t)
	room2 := ok(t, b, "join_path", obj{"context_path": other}).str("room_id")

	mention := ok(t, a, "append_note", obj{"room_id": room, "text": "flaky test in the scheduler: the timer fires twice, maybe the lease"})
	about := ok(t, a, "append_note", obj{"room_id": room, "text": "lease renewal: renew the lease before the lease expires, a lease is 45 minutes"})
	ok(t, a, "append_note", obj{"room_id": room, "text": "unrelated: a typo in the docs"})
	decision := ok(t, b, "append_note", obj{"room_id": room, "text": "adopt lease fencing", "message_type": "decision"})
	ok(t, b, "append_note", obj{"room_id": room2, "text": "the lease of the other room"})
	ok(t, a, "append_room_doc", obj{"room_id": room, "text": "Policy: heartbeat every five minutes", "section": "Decisions"})
	seq := func(r result) float64 { return r.data["event"].(map[string]any)["event_seq"].(float64) }

	all := ok(t, w.connect("stranger", nil), "search_events", obj{"query": "lease"})
	hs := hits(all)
	if len(hs) != 4 {
		t.Fatalf("lease is in four notes: %v", all.data)
	}
	if hs[0]["event_seq"] != seq(about) {
		t.Fatalf("the note about leases must rank first: %v", hs)
	}
	rank := map[float64]int{}
	for i, h := range hs {
		rank[h["event_seq"].(float64)] = i
		if i > 0 && h["score"].(float64) > hs[i-1]["score"].(float64) {
			t.Fatalf("hits must be best first: %v", hs)
		}
		if !strings.Contains(h["snippet"].(string), "**lease**") && !strings.Contains(h["snippet"].(string), "**Lease**") {
			t.Fatalf("snippets mark the matches: %v", h)
		}
	}
	if rank[seq(about)] > rank[seq(mention)] {
		t.Fatalf("a note that mentions the lease once ranks below the one about it: %v", hs)
	}
	for _, want := range []string{"4 hits for \"lease\", best first", "1. room_id " + room, "**lease**", "by " + aID, "get_room_events"} {
		if !strings.Contains(all.text, want) {
			t.Fatalf("search text lacks %q: %s", want, all.text)
		}
	}

	if r := ok(t, a, "search_events", obj{"query": "renewing"}); len(hits(r)) != 1 || hits(r)[0]["event_seq"] != seq(about) {
		t.Fatalf("renewing must find renew (stemmed): %v", r.data)
	}
	if r := ok(t, a, "search_events", obj{"query": "lease", "room_id": room}); len(hits(r)) != 3 {
		t.Fatalf("room_id filter: %v", r.data)
	}
	if r := ok(t, a, "search_events", obj{"query": "lease", "room_id": room2}); len(hits(r)) != 1 || hits(r)[0]["room_id"] != room2 || hits(r)[0]["room_path"] != other {
		t.Fatalf("the other room: %v", r.data)
	}
	if r := ok(t, a, "search_events", obj{"query": "lease", "type": "decision"}); len(hits(r)) != 1 || hits(r)[0]["event_seq"] != seq(decision) {
		t.Fatalf("type filter: %v", r.data)
	}
	if r := ok(t, a, "search_events", obj{"query": "lease", "from_agent_id": bID}); len(hits(r)) != 2 {
		t.Fatalf("from_agent_id filter: %v", r.data)
	}
	if r := ok(t, a, "search_events", obj{"query": "lease", "limit": 1}); len(hits(r)) != 1 || hits(r)[0]["event_seq"] != seq(about) {
		t.Fatalf("limit: %v", r.data)
	}
	doc := ok(t, a, "search_events", obj{"query": "heartbeat", "type": "document"})
	if hs := hits(doc); len(hs) != 1 || hs[0]["doc_version"] != float64(1) || hs[0]["event_seq"] != nil || hs[0]["type"] != "document" ||
		hs[0]["section"] != "Decisions" || !strings.Contains(doc.text, "document version 1, section Decisions") {
		t.Fatalf("document hit: %v %s", doc.data, doc.text)
	}
	for _, h := range hits(ok(t, a, "search_events", obj{"query": "heartbeat"})) {
		if h["type"] == "doc" {
			t.Fatalf("the append's doc event is not a second hit for the document's text: %v", h)
		}
	}
	none := ok(t, a, "search_events", obj{"query": "zeppelin"})
	if len(hits(none)) != 0 || !strings.Contains(none.text, `no hits for "zeppelin"`) {
		t.Fatalf("no hits: %v %s", none.data, none.text)
	}

	for field, args := range map[string]obj{
		"query":         {"query": " "},
		"limit":         {"query": "lease", "limit": stick.MaxSearchLimit + 1},
		"from_agent_id": {"query": "lease", "from_agent_id": "two words"},
		"type":          {"query": "lease", "type": strings.Repeat("t", stick.MaxMessageTypeLen+1)},
		"room":          {"query": "lease", "room": room},
	} {
		if r := fails(t, a, "search_events", args, stick.CodeInvalidArgument); r.errDetail("field") != field {
			t.Errorf("%s: %v", field, r.text)
		}
	}
	// The tool's author filter is from_agent_id, in the field and the message alike.
	r := fails(t, a, "search_events", obj{"query": "lease", "from_agent_id": "two words"}, stick.CodeInvalidArgument)
	if msg, _ := r.data["error"].(map[string]any)["message"].(string); !strings.HasPrefix(msg, "from_agent_id ") {
		t.Fatalf("the message must name from_agent_id: %s", r.text)
	}
	if r := fails(t, a, "search_events", obj{"query": "lease", "limit": -1}, stick.CodeInvalidArgument); r.errDetail("field") != "limit" {
		t.Fatal(r.text)
	}
	fails(t, a, "search_events", obj{"query": "lease", "room_id": "room_nope"}, stick.CodeRoomNotFound)
}
