package server_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/store"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Every error is {"error": {code, message, hint, details}} with its
// status: 400 for what the request got wrong, 404 for a room or path that
// is not there, 405 for a method a path does not take, 409 for a request
// the room's state refuses, 413 for a body too large, 503 with
// Retry-After for a busy store. Each is checked against the OpenAPI
// document too.
func TestErrorStatuses(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	ana, bob, eve := h.client("", "ana"), h.client("", "bob"), h.client("", "eve")
	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "errors"})
	bob.ok(post, "/api/v1/rooms", map[string]any{"name": "errors"})
	room := "/api/v1/rooms/" + str(j, "room_id")
	w := ana.ok(post, room+"/wait", map[string]any{"max_wait_ms": 0})
	lease, turn := str(w, "lease_id"), num(w, "turn_id")

	for _, tc := range []struct {
		what         string
		c            *client
		method, path string
		body         any
		status       int
		code, field  string
	}{
		{"a field of the wrong type", ana, post, room + "/notes", `{"text": 5}`, 400, "invalid_argument", "text"},
		{"a field in the wrong case", ana, post, room + "/notes", `{"Text": "hi"}`, 400, "invalid_argument", "Text"},
		{"an unknown nested field", ana, post, room + "/release", `{"lease_id":"x","expected_turn_id":1,"handoff":{"status":"a","next_action":"b","mood":"c"}}`, 400, "invalid_argument", ""},
		{"room_id in the body", ana, post, room + "/notes", `{"text": "hi", "room_id": "room_other"}`, 400, "invalid_argument", "room_id"},
		{"a body that is no object", ana, post, room + "/notes", `["hi"]`, 400, "invalid_argument", "body"},
		{"a body that is no JSON", ana, post, room + "/notes", `text=hi`, 400, "invalid_argument", "body"},
		{"two objects", ana, post, room + "/notes", `{"text":"a"}{"text":"b"}`, 400, "invalid_argument", "body"},
		{"invalid UTF-8", ana, post, room + "/notes", "{\"text\": \"\xff\"}", 400, "invalid_argument", "body"},
		{"an unknown query parameter", ana, get, room + "/events?afterr=3", nil, 400, "invalid_argument", "afterr"},
		{"a query parameter of the wrong type", ana, get, room + "/events?after=three", nil, 400, "invalid_argument", "after"},
		{"a query on a write", ana, post, room + "/notes?x=1", `{"text": "hi"}`, 400, "invalid_argument", "x"},
		{"a wait too long", ana, get, room + "/events?wait_ms=600001", nil, 400, "invalid_argument", "wait_ms"},
		{"a missing document version", ana, put, room + "/doc", `{"content": "x"}`, 400, "invalid_argument", "expected_version"},
		{"a name and a key", ana, post, "/api/v1/rooms", `{"name": "a", "key": "github.com/a/b"}`, 400, "invalid_argument", ""},
		{"an empty handoff", ana, post, room + "/release", map[string]any{"lease_id": lease, "expected_turn_id": turn, "handoff": map[string]any{}}, 400, "invalid_handoff", ""},
		{"a room that is not there", ana, get, "/api/v1/rooms/room_0000000000000000", nil, 404, "room_not_found", ""},
		{"a key no room has", ana, post, "/api/v1/rooms", `{"key": "github.com/nobody/nothing"}`, 404, "room_not_found", ""},
		{"a path that is not there", ana, get, "/api/v1/nothing", nil, 404, "not_found", ""},
		{"a method a path does not take", ana, http.MethodDelete, room, nil, 405, "method_not_allowed", ""},
		{"another turn", ana, post, room + "/heartbeat", map[string]any{"lease_id": lease, "expected_turn_id": turn + 1}, 409, "turn_mismatch", ""},
		{"another lease", ana, post, room + "/heartbeat", map[string]any{"lease_id": "lease_0", "expected_turn_id": turn}, 409, "stale_lease", ""},
		{"a member that never joined", eve, post, room + "/wait", `{"max_wait_ms": 0}`, 409, "unknown_member", ""},
		{"a close while another holds", bob, post, room + "/close", `{"conclusion": "done"}`, 409, "stick_held", ""},
		{"a takeover of a live turn", bob, post, room + "/takeover", map[string]any{"expected_turn_id": turn, "reason": "impatient"}, 409, "takeover_not_available", ""},
		{"a body too large", ana, post, room + "/notes", `{"text": "` + strings.Repeat("a", 8<<20) + `"}`, 413, "request_too_large", ""},
		{"a client name too long", h.client("", strings.Repeat("c", 65)), get, "/api/v1/rooms", nil, 400, "invalid_argument", "X-Stick-Client"},
	} {
		e := tc.c.fails(tc.status, tc.code, tc.method, tc.path, tc.body)
		if str(e, "message") == "" {
			t.Errorf("%s: no message: %v", tc.what, e)
		}
		if tc.field != "" && str(obj(e, "details"), "field") != tc.field {
			t.Errorf("%s: field %v, want %s", tc.what, obj(e, "details")["field"], tc.field)
		}
	}
	if e := ana.fails(400, "invalid_argument", post, room+"/notes", map[string]any{"text": "hi", "agent_id": "bob"}); !strings.Contains(str(e, "hint"), "X-Stick-Client") {
		t.Errorf("agent_id's hint: %v", e)
	}

	ana.ok(post, room+"/close", map[string]any{"conclusion": "Done."})
	bob.fails(409, "room_closed", post, room+"/notes", map[string]any{"text": "too late"})
}

// A store that stays locked past its busy timeout is 503 db_busy with
// Retry-After, and the hub answers again once the lock is gone.
func TestBusyStore(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	ana := h.client("", "ana")
	j := ana.ok(post, "/api/v1/rooms", map[string]any{"name": "busy"})
	conn, err := sqlite.OpenConn(filepath.Join(h.data, store.DBFileName), sqlite.OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := sqlitex.ExecuteTransient(conn, "BEGIN IMMEDIATE", nil); err != nil {
		t.Fatal(err)
	}
	a := ana.do(post, "/api/v1/rooms/"+str(j, "room_id")+"/notes", map[string]any{"text": "while locked"})
	if a.status != http.StatusServiceUnavailable || a.code(t) != "db_busy" || a.header.Get("Retry-After") != "1" {
		t.Fatalf("a write while the store is locked: %d %v %s", a.status, a.header, a.body)
	}
	if err := sqlitex.ExecuteTransient(conn, "ROLLBACK", nil); err != nil {
		t.Fatal(err)
	}
	ana.ok(post, "/api/v1/rooms/"+str(j, "room_id")+"/notes", map[string]any{"text": "after the lock"})
}
