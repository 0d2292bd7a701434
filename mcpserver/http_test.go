package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// legacyProtocol is the newest protocol revision with sessions: the one
// the TypeScript SDK and the MCP Inspector speak, whose clients name
// themselves only in initialize.
const legacyProtocol = "2025-11-25"

// hub is the HTTP handler on a loopback port over a real database, behind
// a stand-in for the hub's authentication: a request's bearer token names
// its principal (stick.WithPrincipal), an unknown or missing one none.
type hub struct {
	t     *testing.T
	svc   *stick.Service
	clock *testclock.Clock
	h     *mcpserver.HTTPHandler
	url   string
	// tokens maps a bearer token to its principal.
	tokens map[string]stick.Principal
	mu     sync.Mutex
	// served lists the principal of every call ServiceFor served.
	served []string
	// restricted makes ServiceFor serve each principal through its own
	// Service (As), as the hub does, which checks its role.
	restricted bool
}

var (
	ana = stick.Principal{TokenID: "tok_ana", Name: "Ana Laptop", Role: stick.AccessAgent}
	bob = stick.Principal{TokenID: "tok_bob", Name: "Bob", Role: stick.AccessAgent}
)

func newHub(t *testing.T) *hub {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	hb := &hub{t: t, clock: testclock.New(epoch), tokens: map[string]stick.Principal{"secret-ana": ana, "secret-bob": bob}}
	if hb.svc, err = stick.New(st, stick.WithClock(hb.clock)); err != nil {
		t.Fatal(err)
	}
	hb.h = hb.handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := hb.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
			r = r.WithContext(stick.WithPrincipal(r.Context(), p))
		}
		hb.mu.Lock()
		h := hb.h
		hb.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		hb.mu.Lock()
		h := hb.h
		hb.mu.Unlock()
		h.Close()
		srv.Close()
	})
	hb.url = srv.URL + "/mcp"
	return hb
}

// handler makes the hub's MCP handler, as a hub that starts does.
func (hb *hub) handler() *mcpserver.HTTPHandler {
	hb.t.Helper()
	h, err := mcpserver.NewHTTP(mcpserver.HTTPConfig{Service: hb.svc, Version: "test", ProgressEvery: 20 * time.Millisecond,
		ServiceFor: func(p stick.Principal) *stick.Service {
			hb.mu.Lock()
			defer hb.mu.Unlock()
			hb.served = append(hb.served, p.TokenID)
			if hb.restricted {
				return hb.svc.As(p)
			}
			return hb.svc
		}})
	if err != nil {
		hb.t.Fatal(err)
	}
	return h
}

// restart replaces the hub's MCP handler with a new one over the same
// store, as a hub that was restarted has: nothing kept in memory.
func (hb *hub) restart() {
	h := hb.handler()
	hb.mu.Lock()
	old := hb.h
	hb.h = h
	hb.mu.Unlock()
	old.Close()
}

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens a session of the Go SDK's client named clientName with the
// bearer token over Streamable HTTP, in protocol ("" for the SDK's newest).
func (hb *hub) connect(token, clientName, protocol string, opts ...*mcp.ClientOptions) *mcp.ClientSession {
	hb.t.Helper()
	cs, err := hb.dial(token, clientName, protocol, opts...)
	if err != nil {
		hb.t.Fatal(err)
	}
	hb.t.Cleanup(func() { cs.Close() })
	return cs
}

func (hb *hub) dial(token, clientName, protocol string, opts ...*mcp.ClientOptions) (*mcp.ClientSession, error) {
	var o *mcp.ClientOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	tr := &mcp.StreamableClientTransport{Endpoint: hb.url, HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1}
	return mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, o).Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
}

// principals returns the principals ServiceFor served since the last call.
func (hb *hub) principals() []string {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	out := hb.served
	hb.served = nil
	return out
}

// protocols are the two ways a client reaches the handler: the newest
// protocol without sessions, and the older one in a session.
var protocols = []struct{ name, version string }{{"newest", ""}, {"legacy", legacyProtocol}}

// inEachProtocol runs f as a subtest in each of protocols, with a fresh hub
// and the protocol's version for hub.connect.
func inEachProtocol(t *testing.T, f func(t *testing.T, hb *hub, version string)) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) { f(t, newHub(t), p.version) })
	}
}

// Over HTTP the tools are listed exactly as 'stick mcp' lists them: the
// same names, descriptions, annotations and schemas, byte for byte, in
// either protocol; and the newest protocol is served without a session,
// the older one in one.
func TestHTTPListsTheToolsOfStdio(t *testing.T) {
	w := newWorld(t, self(t))
	want, err := w.connect("claude-code", nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	hb := newHub(t)
	for _, p := range protocols {
		cs := hb.connect("secret-ana", "claude-code", p.version)
		got, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Tools) != len(want.Tools) || len(got.Tools) < 20 {
			t.Fatalf("%s: %d tools over HTTP, %d over stdio", p.name, len(got.Tools), len(want.Tools))
		}
		for i := range want.Tools {
			g, _ := json.Marshal(got.Tools[i])
			w, _ := json.Marshal(want.Tools[i])
			if string(g) != string(w) {
				t.Errorf("%s: tool %s differs from stdio's:\nhttp  %s\nstdio %s", p.name, want.Tools[i].Name, g, w)
			}
		}
		if session := cs.ID() != ""; session != (p.version == legacyProtocol) {
			t.Errorf("%s protocol: session id %q", p.name, cs.ID())
		}
		if in := cs.InitializeResult().Instructions; in != mcpserver.RemoteInstructions(mcpserver.AllTools) || strings.Contains(in, "keeps it alive") {
			t.Errorf("%s: instructions: %q", p.name, in)
		}
	}
}

// The whole turn loop between two principals' agents over HTTP: both join
// a named room, one takes the stick, the other waits; the release's
// handoff reaches the waiter with its your_turn. Each call acts as the
// member its principal and client name, through the service given to that
// principal.
func TestHTTPTurnLoop(t *testing.T) {
	inEachProtocol(t, func(t *testing.T, hb *hub, version string) {
		a := hb.connect("secret-ana", "claude-code", version)
		b := hb.connect("secret-bob", "codex-mcp-client", version)
		ja := ok(t, a, "join_path", obj{"name": "release-review"})
		room := ja.str("room_id")
		jb := ok(t, b, "join_path", obj{"name": "release-review"})
		if ja.str("agent_id") != "claude-code@ana-laptop" || jb.str("agent_id") != "codex@bob" || jb.str("room_id") != room {
			t.Fatalf("joined as %s and %s in %s and %s", ja.str("agent_id"), jb.str("agent_id"), room, jb.str("room_id"))
		}
		if ja.str("reclaim_token") == "" || !ja.data["new_member"].(bool) {
			t.Fatalf("a first join: %v", ja.data)
		}
		if got := hb.principals(); !slices.Equal(got, []string{"tok_ana", "tok_bob"}) {
			t.Fatalf("ServiceFor served %v", got)
		}
		turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
		if turn.str("status") != "your_turn" || turn.str("agent_id") != "claude-code@ana-laptop" {
			t.Fatalf("first wait: %v", turn.data)
		}
		if next := turn.str("next_step"); !strings.Contains(next, "nothing renews it between them") || strings.Contains(next, "keeps it alive") {
			t.Fatalf("over HTTP no process keeps the lease: %s", next)
		}
		done := make(chan result, 1)
		go func() {
			r, err := callErr(b, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 20000})
			if err != nil {
				t.Error(err)
			}
			done <- r
		}()
		rel := ok(t, a, "release_stick", with(lease(turn), "handoff", obj{"status": "tests pass", "next_action": "review the diff",
			"artifacts": []obj{{"path": "main.go", "role": "review"}}}))
		if rel.str("reserved_for") != "codex@bob" {
			t.Fatalf("release: %v", rel.data)
		}
		var got result
		select {
		case got = <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("the waiter did not get its turn after the release")
		}
		if got.str("status") != "your_turn" || got.str("agent_id") != "codex@bob" {
			t.Fatalf("the waiter's wait: %v", got.data)
		}
		h, _ := got.data["handoff"].(map[string]any)
		if h["status"] != "tests pass" || h["next_action"] != "review the diff" || got.str("from_agent_id") != "claude-code@ana-laptop" || !strings.Contains(got.text, "review the diff") {
			t.Fatalf("the handoff did not reach the waiter: %v\n%s", got.data, got.text)
		}
		ok(t, b, "release_stick", with(lease(got), "handoff", handoff("reviewed")))
	})
}

// A waiter over HTTP that asked for progress hears from the hub while it
// waits, in either protocol, and its wait returns as soon as the stick is
// released to it.
func TestHTTPWaitReportsProgress(t *testing.T) {
	inEachProtocol(t, func(t *testing.T, hb *hub, version string) {
		var progress atomic.Int32
		waiter := hb.connect("secret-bob", "codex", version, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				if req.Params.ProgressToken == "tok" && strings.Contains(req.Params.Message, "waiting for the stick") {
					progress.Add(1)
				}
			},
		})
		holder := hb.connect("secret-ana", "claude-code", version)
		room := ok(t, holder, "join_path", obj{"name": "slow"}).str("room_id")
		ok(t, waiter, "join_path", obj{"name": "slow"})
		turn := ok(t, holder, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
		done := make(chan *mcp.CallToolResult, 1)
		go func() {
			params := &mcp.CallToolParams{Name: "wait_for_turn", Arguments: obj{"room_id": room, "max_wait_ms": 30000}}
			params.SetProgressToken("tok")
			res, err := waiter.CallTool(context.Background(), params)
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		awaitCount(t, &progress, 2, "no progress notifications while waiting")
		ok(t, holder, "release_stick", with(lease(turn), "handoff", handoff("over to you")))
		select {
		case res := <-done:
			if sc, _ := res.StructuredContent.(map[string]any); res.IsError || sc["status"] != "your_turn" {
				t.Fatalf("wait: %v", res.StructuredContent)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the wait did not return after the release")
		}
	})
}
