package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// A team's session over the JSON API, each answer checked against the
// OpenAPI document: created by name with conclude, the list says who
// joined, a viewer's long poll on the roster wakes when the second member
// joins, only the concluder (or an operator) names another, an agent's
// close asks the concluder, who closes only with a conclusion; in a
// session that names no concluder, only an operator closes.
func TestSessionsOverTheAPI(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	secrets, env := makeTokens(t, data, tokenSpec{"Alex's Team", stick.AccessAgent}, tokenSpec{"Bob's Team", stick.AccessAgent},
		tokenSpec{"watchers", stick.AccessViewer}, tokenSpec{"ops", stick.AccessOperator})
	h := startHub(t, data, env)
	alex, bob := h.client(secrets["Alex's Team"], ""), h.client(secrets["Bob's Team"], "")
	viewer, ops := h.client(secrets["watchers"], ""), h.client(secrets["ops"], "")

	j := alex.ok(post, "/api/v1/rooms", map[string]any{"name": "s1", "conclude": true})
	room := "/api/v1/rooms/" + str(j, "room_id")
	if str(obj(j, "room"), "concluder") != "curl@alex-s-team" {
		t.Fatalf("join with conclude: %v", j)
	}
	roster := make(chan map[string]any, 1)
	go func() { roster <- viewer.ok(get, room+"/members?min=2&wait_ms=60000", nil) }()
	viewer.polls(1)
	bob.ok(post, "/api/v1/rooms", map[string]any{"name": "s1", "conclude": true})
	r := <-roster
	if r["reached"] != true || num(r, "want") != 2 || len(list(r, "members")) != 2 || str(r, "concluder") != "curl@alex-s-team" {
		t.Fatalf("the roster: %v", r)
	}
	if rs := list(viewer.ok(get, "/api/v1/rooms?name=s1", nil), "rooms"); len(rs) != 1 ||
		strings.Join(strs(list(rs[0].(map[string]any), "joined")), " ") != "curl@alex-s-team curl@bob-s-team" {
		t.Fatalf("the list of sessions: %v", rs)
	}
	for _, q := range []string{"min=-1", "min=1001", "wait_ms=600001", "min=x"} {
		e := viewer.fails(http.StatusBadRequest, "invalid_argument", get, room+"/members?"+q, nil)
		if f := str(obj(e, "details"), "field"); !strings.HasPrefix(q, f+"=") {
			t.Fatalf("members?%s: field %q", q, f)
		}
	}

	e := bob.fails(http.StatusForbidden, "forbidden", post, room+"/concluder", map[string]any{"concluder": "curl@bob-s-team"})
	if str(obj(e, "details"), "concluder") != "curl@alex-s-team" {
		t.Fatalf("bob names himself: %v", e)
	}
	viewer.fails(http.StatusForbidden, "forbidden", post, room+"/concluder", map[string]any{"concluder": "curl@bob-s-team"})
	alex.fails(http.StatusConflict, "unknown_member", post, room+"/concluder", map[string]any{"concluder": "codex@nobody"})
	if st := alex.ok(post, room+"/concluder", map[string]any{"concluder": "curl@alex-s-team"}); str(st, "concluder") != "curl@alex-s-team" {
		t.Fatalf("naming the concluder again: %v", st)
	}

	asked := bob.ok(post, room+"/close", map[string]any{"reason": "done", "conclusion": "A draft."})
	if asked["conclusion_requested"] != true || str(asked, "concluder") != "curl@alex-s-team" {
		t.Fatalf("bob's close: %v", asked)
	}
	if st := viewer.ok(get, room, nil); str(st, "state") != "reserved" || str(st, "reserved_for") != "curl@alex-s-team" {
		t.Fatalf("after bob's request: %v", st)
	}
	e = alex.fails(http.StatusBadRequest, "invalid_argument", post, room+"/close", map[string]any{"reason": "done"})
	if str(obj(e, "details"), "field") != "conclusion" {
		t.Fatalf("alex's close without a conclusion: %v", e)
	}
	if cl := alex.ok(post, room+"/close", map[string]any{"conclusion": "Done: s1 shipped."}); str(cl, "closed_at") == "" || num(cl, "doc_version") == 0 {
		t.Fatalf("alex's close: %v", cl)
	}
	if r := viewer.ok(get, room+"/members?min=5&wait_ms=60000", nil); r["closed"] != true || r["reached"] != false {
		t.Fatalf("the roster of a closed session: %v", r)
	}

	s2 := "/api/v1/rooms/" + str(bob.ok(post, "/api/v1/rooms", map[string]any{"name": "s2"}), "room_id")
	e = bob.fails(http.StatusForbidden, "forbidden", post, s2+"/close", map[string]any{"conclusion": "Done."})
	if str(obj(e, "details"), "needed_role") != "operator" {
		t.Fatalf("an agent's close of a session without a concluder: %v", e)
	}
	ops.ok(post, "/api/v1/rooms", map[string]any{"name": "s2"})
	if cl := ops.ok(post, s2+"/close", map[string]any{"reason": "abandoned"}); str(cl, "closed_at") == "" {
		t.Fatalf("the operator's close: %v", cl)
	}
	e = bob.fails(http.StatusBadRequest, "invalid_argument", post, "/api/v1/rooms", map[string]any{"context_path": "/tmp", "conclude": true})
	if str(obj(e, "details"), "field") != "conclude" {
		t.Fatalf("conclude without a name: %v", e)
	}
}

func strs(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i], _ = x.(string)
	}
	return out
}
