package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
)

// Named rooms through MCP: join_path with a name creates and joins the
// room from any directory, list_rooms lists it beside the rooms of the
// path, turns are taken in it as anywhere, close_room closes it, and the
// name then starts a new room.
func TestNamedRoomsOverMCP(t *testing.T) {
	w := newWorld(t, self(t))
	a, b := w.connect("claude-code", nil), w.connect("codex", nil)
	j := ok(t, a, "join_path", obj{"name": "release-1.4-review"})
	room := j.str("room_id")
	if j.str("room_name") != "release-1.4-review" || j.data["created"] != true || j.str("canonical_path") != "" || j.data["room_key"] != nil {
		t.Fatalf("join_path by name: %v", j.data)
	}
	if !strings.Contains(j.text, "joined room_id "+room+" named release-1.4-review as agent_id ") {
		t.Fatalf("join text: %s", j.text)
	}
	if again := ok(t, b, "join_path", obj{"name": "release-1.4-review"}); again.str("room_id") != room || again.data["created"] != false {
		t.Fatalf("second join_path by name: %v", again.data)
	}
	atRepo := ok(t, a, "join_path", obj{"context_path": w.repo}).str("room_id")
	list := ok(t, a, "list_rooms", obj{"context_path": w.repo})
	rooms, _ := list.data["rooms"].([]any)
	if len(rooms) != 2 || rooms[0].(map[string]any)["room_id"] != atRepo || rooms[1].(map[string]any)["room_name"] != "release-1.4-review" {
		t.Fatalf("list_rooms: %v", list.data)
	}
	if !strings.Contains(list.text, "- room_id "+room+" named release-1.4-review: idle") {
		t.Fatalf("list_rooms text: %s", list.text)
	}
	st := ok(t, b, "get_room_state", obj{"room_id": room})
	if st.str("room_name") != "release-1.4-review" || !strings.HasPrefix(st.text, "room_id "+room+" named release-1.4-review: ") {
		t.Fatalf("get_room_state: %v\n%s", st.data, st.text)
	}
	turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if turn.str("status") != string(stick.YourTurn) {
		t.Fatalf("wait_for_turn: %s", turn.text)
	}
	ok(t, a, "release_stick", with(lease(turn), "handoff", handoff("read the release notes")))
	hits := ok(t, b, "search_events", obj{"query": "release notes", "room_id": room})
	if !strings.Contains(hits.text, "room_id "+room+" (named release-1.4-review)") {
		t.Fatalf("search_events text: %s", hits.text)
	}
	ok(t, b, "close_room", obj{"room_id": room, "reason": "reviewed"})
	list = ok(t, a, "list_rooms", obj{"context_path": w.repo})
	if rooms, _ := list.data["rooms"].([]any); len(rooms) != 1 {
		t.Fatalf("a closed named room is listed around a path: %v", list.data)
	}
	next := ok(t, b, "join_path", obj{"name": "release-1.4-review"})
	if next.str("room_id") == room || next.data["created"] != true {
		t.Fatalf("join_path by the name of a closed room: %v", next.data)
	}

	for _, tc := range []struct {
		args  obj
		field string
	}{
		{obj{"name": "Release 1.4"}, "name"},
		{obj{"name": "room_1"}, "name"},
		{obj{"name": "review", "context_path": w.repo}, "name"},
		{obj{"name": "review", "force_new": true}, "force_new"},
		{obj{}, "context_path"},
	} {
		if r := fails(t, a, "join_path", tc.args, stick.CodeInvalidArgument); r.errDetail("field") != tc.field {
			t.Errorf("join_path %v: field %v, want %s", tc.args, r.errDetail("field"), tc.field)
		}
	}
}

// join_path, get_room_state and list_rooms show a room's key: clones of
// one repository share it, whatever form their origin URL is written in.
func TestRoomKeyOverMCP(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("claude-code", nil)
	src := testkit.GitSource(t)
	https := testkit.GitClone(t, src, "https://github.com/acme/api")
	scp := testkit.GitClone(t, src, "git@github.com:acme/api.git")
	a := ok(t, cs, "join_path", obj{"context_path": https})
	b := ok(t, cs, "join_path", obj{"context_path": scp})
	if a.str("room_id") == b.str("room_id") || a.str("room_key") != "github.com/acme/api" || b.str("room_key") != a.str("room_key") {
		t.Fatalf("clones: %v\n%v", a.data, b.data)
	}
	if st := ok(t, cs, "get_room_state", obj{"room_id": b.str("room_id")}); st.str("room_key") != "github.com/acme/api" {
		t.Fatalf("get_room_state: %v", st.data)
	}
	list := ok(t, cs, "list_rooms", obj{"context_path": scp})
	rooms, _ := list.data["rooms"].([]any)
	if len(rooms) != 1 || rooms[0].(map[string]any)["room_key"] != "github.com/acme/api" {
		t.Fatalf("list_rooms: %v", list.data)
	}
}
