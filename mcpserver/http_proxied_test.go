package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
)

// headers adds a bearer token and the headers a test sets to every
// request, as a proxy ('stick mcp --server') sends its session and a
// write's Idempotency-Key.
type headers struct {
	mu    sync.Mutex
	token string
	set   map[string]string
}

func (h *headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	h.mu.Lock()
	r.Header.Set("Authorization", "Bearer "+h.token)
	for k, v := range h.set {
		r.Header.Set(k, v)
	}
	h.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// with sets a header for the requests that follow ("" removes it).
func (h *headers) with(name, value string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if value == "" {
		delete(h.set, name)
		return
	}
	h.set[name] = value
}

// proxied connects as clientName with token in session ("" for none), in
// the SDK's newest protocol, as a proxy does.
func (hb *hub) proxied(token, clientName, session string) (*mcp.ClientSession, *headers) {
	hb.t.Helper()
	h := &headers{token: token, set: map[string]string{}}
	h.with(identity.SessionHeader, session)
	tr := &mcp.StreamableClientTransport{Endpoint: hb.url, HTTPClient: &http.Client{Transport: h}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		hb.t.Fatal(err)
	}
	hb.t.Cleanup(func() { cs.Close() })
	return cs, h
}

const (
	session1 = "4242.1767000000123.0123456789abcdef"
	session2 = "4243.1767000000123.0123456789abcdef"
)

// Behind a proxy, each harness session is a member of its own, of the
// token it comes with; its lease is kept by the proxy's stream, so the
// texts say what stdio's say. A session that is not one is refused.
func TestHTTPProxiedSessions(t *testing.T) {
	hb := newHub(t)
	a, _ := hb.proxied("secret-ana", "claude-code", session1)
	b, _ := hb.proxied("secret-ana", "claude-code", session2)
	plain := hb.connect("secret-ana", "claude-code", "")
	ja := ok(t, a, "join_path", obj{"name": "sessions"})
	jb := ok(t, b, "join_path", obj{"name": "sessions"})
	jp := ok(t, plain, "join_path", obj{"name": "sessions"})
	ids := []string{ja.str("agent_id"), jb.str("agent_id"), jp.str("agent_id")}
	if ids[0] == ids[1] || !strings.HasPrefix(ids[0], "claude-code:") || !strings.HasSuffix(ids[0], "@ana-laptop") || ids[2] != "claude-code@ana-laptop" {
		t.Fatalf("members: %v", ids)
	}
	room := ja.str("room_id")
	turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if next := turn.str("next_step"); turn.str("status") != "your_turn" || !strings.Contains(next, "this server keeps it alive between them") {
		t.Fatalf("behind a proxy the lease is kept: %v", turn.data)
	}
	st := ok(t, plain, "get_room_state", obj{"room_id": room})
	if member(t, st.data["members"], ids[0])["status"] != "active" {
		t.Fatalf("a member behind a proxy, judged by this host's checks: %v", st.data["members"])
	}
	bad, _ := hb.proxied("secret-ana", "claude-code", "not-a-session")
	if r := fails(t, bad, "list_rooms", obj{}, "invalid_argument"); r.errDetail("field") != identity.SessionHeader {
		t.Fatalf("a bad session: %v", r.data)
	}
	if mcpserver.ProxyInstructions(mcpserver.AllTools) == mcpserver.RemoteInstructions(mcpserver.AllTools) ||
		!strings.Contains(mcpserver.ProxyInstructions(mcpserver.AllTools), "this server keeps it alive") {
		t.Fatal("a proxy's instructions say its lease is kept")
	}
}

// A write sent again with its Idempotency-Key gets its first result and
// changes nothing: a note is posted once, a release that ended the turn
// answers as it did instead of stale_lease. The same key with other
// arguments is idempotency_key_reused; another session's same key is
// another write; a read is never answered from the cache.
func TestHTTPIdempotentToolCalls(t *testing.T) {
	hb := newHub(t)
	a, ah := hb.proxied("secret-ana", "claude-code", session1)
	b, bh := hb.proxied("secret-ana", "claude-code", session2)
	room := ok(t, a, "join_path", obj{"name": "retries"}).str("room_id")
	ok(t, b, "join_path", obj{"name": "retries"})

	ah.with("Idempotency-Key", "note-1")
	note := obj{"room_id": room, "text": "posted once"}
	first := ok(t, a, "append_note", note)
	again := ok(t, a, "append_note", note)
	if first.text != again.text || first.data["event"].(map[string]any)["event_seq"] != again.data["event"].(map[string]any)["event_seq"] {
		t.Fatalf("a retried note: %s, then %s", first.text, again.text)
	}
	fails(t, a, "append_note", obj{"room_id": room, "text": "another note"}, "idempotency_key_reused")
	bh.with("Idempotency-Key", "note-1")
	if other := ok(t, b, "append_note", note); other.data["event"].(map[string]any)["event_seq"] == first.data["event"].(map[string]any)["event_seq"] {
		t.Fatal("another session's key was answered with this one's note")
	}
	ah.with("Idempotency-Key", "")
	events := ok(t, a, "get_room_events", obj{"room_id": room})
	if n := strings.Count(events.text, "posted once"); n != 2 {
		t.Fatalf("%d notes posted, want one per session:\n%s", n, events.text)
	}

	turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	release := with(lease(turn), "handoff", handoff("done with the retries"))
	ah.with("Idempotency-Key", "release-1")
	r1 := ok(t, a, "release_stick", release)
	r2 := ok(t, a, "release_stick", release)
	if r1.text != r2.text {
		t.Fatalf("a retried release: %s, then %s", r1.text, r2.text)
	}
	ah.with("Idempotency-Key", "")
	fails(t, a, "release_stick", release, "stale_lease")

	ah.with("Idempotency-Key", "read-1")
	bh.with("Idempotency-Key", "")
	before := ok(t, a, "get_room_events", obj{"room_id": room}).text
	ok(t, b, "append_note", obj{"room_id": room, "text": "after the read"})
	if after := ok(t, a, "get_room_events", obj{"room_id": room}).text; after == before || !strings.Contains(after, "after the read") {
		t.Fatal("a read was answered from the cache")
	}
	ah.with("Idempotency-Key", strings.Repeat("k", 256))
	fails(t, a, "append_note", note, "invalid_argument")
}

// ToolList, what a proxy offers, is the list 'stick mcp' offers, tool for
// tool, in every tool set.
func TestToolListIsStdios(t *testing.T) {
	for _, set := range []mcpserver.ToolSet{mcpserver.AllTools, mcpserver.CoreTools} {
		want, _ := json.Marshal(listTools(t, serve(t, set)))
		list, err := mcpserver.ToolList(set)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(list)
		var w, g any
		_ = json.Unmarshal(want, &w)
		_ = json.Unmarshal(got, &g)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("tool set %q: ToolList differs from the tools stdio lists", set)
		}
	}
	if _, err := mcpserver.ToolList("some"); stick.ErrorCode(err) != stick.CodeInvalidArgument {
		t.Fatalf("an unknown tool set: %v", err)
	}
}

// A call whose result was lost when the hub was restarted is retried with
// its Idempotency-Key on the new hub and gets the first result: a note is
// posted once, a release answers as it did instead of stale_lease. The
// results are kept in the store, so this holds for a credential's own
// Service (As) too.
func TestHTTPIdempotentAcrossRestart(t *testing.T) {
	hb := newHub(t)
	hb.restricted = true
	a, ah := hb.proxied("secret-ana", "claude-code", session1)
	room := ok(t, a, "join_path", obj{"name": "restarts"}).str("room_id")
	ah.with("Idempotency-Key", "wait-1")
	turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	// A wait's result is not kept in the store: its retry after a restart
	// is the holder's redelivery, the same turn and lease.
	hb.restart()
	if again := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}); again.str("status") != "your_turn" ||
		again.str("lease_id") != turn.str("lease_id") || again.data["turn_id"] != turn.data["turn_id"] {
		t.Fatalf("a wait retried after a restart: %s, first %s", again.text, turn.text)
	}

	ah.with("Idempotency-Key", "note-1")
	note := obj{"room_id": room, "text": "posted once"}
	first := ok(t, a, "append_note", note)
	release := with(lease(turn), "handoff", handoff("done before the restart"))
	ah.with("Idempotency-Key", "release-1")
	r1 := ok(t, a, "release_stick", release)

	hb.restart()
	ah.with("Idempotency-Key", "note-1")
	if again := ok(t, a, "append_note", note); again.text != first.text {
		t.Fatalf("a note retried after a restart: %s, first %s", again.text, first.text)
	}
	fails(t, a, "append_note", obj{"room_id": room, "text": "another note"}, "idempotency_key_reused")
	ah.with("Idempotency-Key", "release-1")
	if r2 := ok(t, a, "release_stick", release); r2.text != r1.text {
		t.Fatalf("a release retried after a restart: %s, first %s", r2.text, r1.text)
	}
	ah.with("Idempotency-Key", "")
	fails(t, a, "release_stick", release, "stale_lease")
	if n := strings.Count(ok(t, a, "get_room_events", obj{"room_id": room}).text, "posted once"); n != 1 {
		t.Fatalf("%d notes posted, want 1", n)
	}
}
