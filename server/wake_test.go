package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
)

// asProxy sends every request as a proxy ('stick mcp --server') does: the
// token, the harness's client and its session.
type asProxy struct{ secret, client, session string }

func (p asProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+p.secret)
	r.Header.Set("X-Stick-Client", p.client)
	r.Header.Set(identity.SessionHeader, p.session)
	return http.DefaultTransport.RoundTrip(r)
}

// proxySession is the session a proxy names in the tests of this file.
const proxySession = "4242.1767000000123.0123456789abcdef"

// The JSON API names its caller as the MCP endpoint does: a request with
// a proxy's headers acts as the member the proxy's tool calls act as, one
// without the session as another member, and a malformed session is
// refused.
func TestJSONActsAsTheProxiedMember(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	tr := &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: asProxy{token, "claude-code", proxySession}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2.0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	j := call(t, cs, "join_path", map[string]any{"name": "proxied"}, "")
	room, id := str(j, "room_id"), str(j, "agent_id")
	if !strings.HasPrefix(id, "claude-code:") {
		t.Fatalf("the proxied member is %s", id)
	}

	proxied := h.client(token, "claude-code")
	proxied.header.Set(identity.SessionHeader, proxySession)
	me := proxied.ok(http.MethodGet, "/api/v1/rooms/"+room+"/me", nil)
	if str(me, "agent_id") != id {
		t.Fatalf("the JSON API with the proxy's headers acts as %s, its MCP calls as %s", str(me, "agent_id"), id)
	}
	h.client(token, "claude-code").fails(http.StatusConflict, "unknown_member", http.MethodGet, "/api/v1/rooms/"+room+"/me", nil)
	e := h.client(token, "claude-code").fails(http.StatusBadRequest, "invalid_argument", http.MethodGet, "/api/v1/rooms/"+room+"/me", nil,
		identity.SessionHeader, "4242.x")
	if str(obj(e, "details"), "field") != identity.SessionHeader {
		t.Fatalf("a malformed session: %v", e)
	}
}

// The wake endpoints through the JSON API: a member registers its
// transports (shown in the room's state, never a secret); an await
// claims the wake of a note addressed to it, once per unread batch, and
// answers due false when its wait runs out; a report shows the delivery
// state; bad input is invalid_argument, a stranger unknown_member.
func TestWakeEndpoints(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	post := http.MethodPost
	me := h.client(token, "claude-code")
	me.header.Set(identity.SessionHeader, proxySession)
	peer := h.client(token, "ci-runner")
	j := me.ok(post, "/api/v1/rooms", map[string]any{"name": "wake-api"})
	room, id := "/api/v1/rooms/"+str(j, "room_id"), str(j, "agent_id")
	sender := str(peer.ok(post, "/api/v1/rooms", map[string]any{"name": "wake-api"}), "agent_id")

	reg := me.ok(post, room+"/wake/register", map[string]any{"transports": []string{"claude-inbox", "codex-queue"}})
	if str(reg, "agent_id") != id || len(list(reg, "transports")) != 2 {
		t.Fatalf("register: %v", reg)
	}
	if w := wakeOf(t, me, room, id); len(list(w, "transports")) != 2 || str(w, "last_state") != "" {
		t.Fatalf("the member's wake after registering: %v", w)
	}
	if a := me.ok(post, room+"/wake/await", map[string]any{"wait_ms": 0}); a["due"] != false || a["claim"] != nil {
		t.Fatalf("an await with nothing due: %v", a)
	}
	start := time.Now()
	if a := me.ok(post, room+"/wake/await", map[string]any{"wait_ms": 300}); a["due"] != false {
		t.Fatalf("an await whose wait ran out: %v", a)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("an await of 300ms answered after %v", took)
	}

	awaited := make(chan map[string]any, 1)
	go func() { awaited <- me.ok(post, room+"/wake/await", map[string]any{"wait_ms": 30000}) }()
	note := peer.ok(post, room+"/notes", map[string]any{"text": "the parser is yours", "to": []string{id}})
	a := within(t, awaited, "the await's claim")
	claim := obj(a, "claim")
	if a["due"] != true || str(claim, "from_agent_id") != sender || str(claim, "why") != "addressed" || num(claim, "event_seq") != num(obj(note, "event"), "event_seq") {
		t.Fatalf("the await after a note to the member: %v (note %v)", a, note)
	}
	peer.ok(post, room+"/notes", map[string]any{"text": "and the lexer", "to": []string{id}})
	if a := me.ok(post, room+"/wake/await", map[string]any{"wait_ms": 0}); a["due"] != false {
		t.Fatalf("a second note before the member read woke it again: %v", a)
	}
	rep := me.ok(post, room+"/wake/report", map[string]any{"transport": "claude-inbox", "state": "queued"})
	if str(rep, "state") != "queued" {
		t.Fatalf("report: %v", rep)
	}
	if w := wakeOf(t, me, room, id); str(w, "last_state") != "queued" || str(w, "last_transport") != "claude-inbox" {
		t.Fatalf("the member's wake after the report: %v", w)
	}
	me.ok(post, room+"/sync", map[string]any{})
	peer.ok(post, room+"/notes", map[string]any{"text": "one more", "to": []string{id}})
	if a := me.ok(post, room+"/wake/await", map[string]any{"wait_ms": 30000}); a["due"] != true {
		t.Fatalf("a note after the member read: %v", a)
	}

	for _, bad := range []map[string]any{{"wait_ms": -1}, {"wait_ms": 600001}} {
		if e := me.fails(http.StatusBadRequest, "invalid_argument", post, room+"/wake/await", bad); str(obj(e, "details"), "field") != "wait_ms" {
			t.Fatalf("%v: %v", bad, e)
		}
	}
	me.fails(http.StatusBadRequest, "invalid_argument", post, room+"/wake/register", map[string]any{"transports": []string{"Claude Inbox"}})
	me.fails(http.StatusBadRequest, "invalid_argument", post, room+"/wake/report", map[string]any{"transport": "claude-inbox", "state": "maybe"})
	stranger := h.client(token, "codex")
	stranger.fails(http.StatusConflict, "unknown_member", post, room+"/wake/register", map[string]any{"transports": []string{"codex-queue"}})
	stranger.fails(http.StatusConflict, "unknown_member", post, room+"/wake/await", map[string]any{"wait_ms": 1000})
}

// wakeOf returns the wake status of member id in the room's state.
func wakeOf(t *testing.T, c *client, room, id string) map[string]any {
	t.Helper()
	for _, m := range list(c.ok(http.MethodGet, room, nil), "members") {
		if m := m.(map[string]any); str(m, "agent_id") == id {
			return obj(m, "wake")
		}
	}
	t.Fatalf("%s is not a member of %s", id, room)
	return nil
}
