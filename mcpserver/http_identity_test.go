package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
)

// fault is one call that fails, the code it fails with and the detail
// keys its error carries.
type fault struct {
	name    string
	code    string
	details []string
}

// faults makes the protocol's faults with two members a and b of one
// room, a holding the stick, and returns what each call failed with.
func faults(t *testing.T, a, b *mcp.ClientSession) []fault {
	t.Helper()
	room := ok(t, a, "join_path", obj{"name": "faults"}).str("room_id")
	ok(t, b, "join_path", obj{"name": "faults"})
	turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	l := lease(turn)
	var out []fault
	for _, c := range []struct {
		name string
		cs   *mcp.ClientSession
		tool string
		args obj
	}{
		{"room not found", a, "get_room_state", obj{"room_id": "room_0000000000000000"}},
		{"turn mismatch", a, "heartbeat", with(l, "expected_turn_id", turn.num("turn_id")+5)},
		{"stale lease", a, "heartbeat", with(l, "lease_id", "lease_0123456789abcdef0123456789abcdef")},
		{"another's lease", b, "release_stick", with(l, "handoff", handoff("not mine"))},
		{"invalid handoff", a, "release_stick", with(l, "handoff", obj{"status": " ", "next_action": "x"})},
		{"unknown field", a, "wait_for_turn", obj{"room_id": room, "agent_id": "x"}},
		{"pass to a stranger", a, "pass_stick", with(l, "to_agent_id", "nobody", "handoff", handoff("to nobody"))},
		{"takeover of a live turn", b, "takeover_stick", obj{"room_id": room, "expected_turn_id": turn.num("turn_id"), "reason": "impatient"}},
		{"stale document", a, "update_room_doc", obj{"room_id": room, "content": "x", "expected_version": 7}},
	} {
		r := call(t, c.cs, c.tool, c.args)
		if !r.raw.IsError {
			t.Fatalf("%s: %s did not fail: %s", c.name, c.tool, r.text)
		}
		e, _ := r.data["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		out = append(out, fault{c.name, r.errCode(), slices.Sorted(maps.Keys(d))})
	}
	ok(t, a, "release_stick", with(l, "handoff", handoff("done")))
	return out
}

// The same faults fail with the same codes, and the same details, over
// HTTP (in either protocol) as over stdio.
func TestHTTPErrorCodesAreStdios(t *testing.T) {
	w := newWorld(t, self(t))
	stdio := faults(t, w.connect("claude-code", nil), w.connect("codex", nil))
	want := map[string]stick.Code{
		"room not found": stick.CodeRoomNotFound, "turn mismatch": stick.CodeTurnMismatch, "stale lease": stick.CodeStaleLease,
		"invalid handoff": stick.CodeInvalidHandoff, "unknown field": stick.CodeInvalidArgument,
		"stale document": stick.CodeVersionConflict,
	}
	for _, f := range stdio {
		if c, ok := want[f.name]; ok && f.code != string(c) {
			t.Errorf("stdio: %s failed with %s, want %s", f.name, f.code, c)
		}
	}
	for _, p := range protocols {
		hb := newHub(t)
		got := faults(t, hb.connect("secret-ana", "claude-code", p.version), hb.connect("secret-bob", "codex", p.version))
		for i := range stdio {
			if got[i].code != stdio[i].code || !slices.Equal(got[i].details, stdio[i].details) {
				t.Errorf("%s protocol: %s: http %s %v, stdio %s %v", p.name, stdio[i].name, got[i].code, got[i].details, stdio[i].code, stdio[i].details)
			}
		}
	}
}

// A member is its principal and its client: two clients of one token are
// two members, two sessions of one client with one token are one member,
// and the same client with two tokens is two members. A restarted client
// is the same member with no reclaim token.
func TestHTTPMemberIsPrincipalAndClient(t *testing.T) {
	inEachProtocol(t, func(t *testing.T, hb *hub, version string) {
		claude := hb.connect("secret-ana", "claude-code", version)
		codex := hb.connect("secret-ana", "codex-mcp-client", version)
		again := hb.connect("secret-ana", "claude-code", version)
		bobs := hb.connect("secret-bob", "claude-code", version)
		room := ok(t, claude, "join_path", obj{"name": "team"}).str("room_id")
		ids := []string{"claude-code@ana-laptop"}
		for _, cs := range []*mcp.ClientSession{codex, again, bobs} {
			ids = append(ids, ok(t, cs, "join_path", obj{"name": "team"}).str("agent_id"))
		}
		if want := []string{"claude-code@ana-laptop", "codex@ana-laptop", "claude-code@ana-laptop", "claude-code@bob"}; !slices.Equal(ids, want) {
			t.Fatalf("members %v, want %v", ids, want)
		}
		st := ok(t, claude, "get_room_state", obj{"room_id": room})
		if ms, _ := st.data["members"].([]any); len(ms) != 3 {
			t.Fatalf("three members, not %d: %v", len(ms), st.data["members"])
		}
		m := member(t, st.data["members"], "claude-code@ana-laptop")
		if display, _ := m["display_name"].(string); m["session_kind"] != string(stick.KindHarness) || !strings.Contains(display, "claude-code 1.0") {
			t.Fatalf("a remote member: %v", m)
		}
		turn := ok(t, claude, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
		claude.Close()
		// The same client of the same token, restarted: the same
		// member, holding the same turn, with no reclaim token.
		restarted := hb.connect("secret-ana", "claude-code", version)
		if j := ok(t, restarted, "join_path", obj{"name": "team"}); j.str("agent_id") != "claude-code@ana-laptop" || j.data["new_member"] != false {
			t.Fatalf("a restarted client: %v", j.data)
		}
		ok(t, restarted, "heartbeat", lease(turn))
		ok(t, again, "release_stick", with(lease(turn), "handoff", handoff("from the other session of the same member")))
	})
}

// An agent_id_override or a reclaim_token never makes one principal act as
// another principal's member, nor one client act as another client of its
// own principal: over HTTP a call is only ever the member its principal
// and client name. An override naming that member itself, and that
// member's own reclaim token, are accepted and change nothing.
func TestHTTPForgedIdentityRefused(t *testing.T) {
	inEachProtocol(t, func(t *testing.T, hb *hub, version string) {
		a := hb.connect("secret-ana", "claude-code", version)
		b := hb.connect("secret-bob", "claude-code", version)
		anaCodex := hb.connect("secret-ana", "codex", version)
		ja := ok(t, a, "join_path", obj{"name": "guarded"})
		room, token := ja.str("room_id"), ja.str("reclaim_token")
		turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
		before := ok(t, a, "get_room_events", obj{"room_id": room}).num("cursor")

		r := fails(t, b, "join_path", obj{"name": "guarded", "agent_id_override": "claude-code@ana-laptop"}, stick.CodeForbidden)
		if r.errDetail("field") != "agent_id_override" || r.errDetail("agent_id") != "claude-code@bob" {
			t.Fatalf("a forged override: %v", r.data)
		}
		fails(t, anaCodex, "join_path", obj{"name": "guarded", "agent_id_override": "claude-code@ana-laptop"}, stick.CodeForbidden)
		for _, cs := range []*mcp.ClientSession{b, anaCodex} {
			r := fails(t, cs, "join_path", obj{"name": "guarded", "reclaim_token": token}, stick.CodeInvalidArgument)
			if r.errDetail("field") != "reclaim_token" || !strings.Contains(r.text, "over HTTP you are") {
				t.Fatalf("another member's reclaim token: %s", r.text)
			}
		}
		if after := ok(t, a, "get_room_events", obj{"room_id": room}).num("cursor"); after != before {
			t.Fatalf("a refused join changed the room: cursor %d -> %d", before, after)
		}
		st := ok(t, a, "get_room_state", obj{"room_id": room})
		if ms, _ := st.data["members"].([]any); len(ms) != 1 || st.str("owner") != "claude-code@ana-laptop" {
			t.Fatalf("refused joins made members: %v", st.data)
		}
		// Knowing the holder's lease does not make another principal the holder.
		fails(t, b, "join_path", obj{"name": "guarded", "agent_id_override": "claude-code@ana-laptop", "reclaim_token": token}, stick.CodeForbidden)
		ok(t, b, "join_path", obj{"name": "guarded"})
		r = fails(t, b, "release_stick", with(lease(turn), "handoff", handoff("stolen")), stick.CodeStaleLease)
		if r.errDetail("current_owner") != "claude-code@ana-laptop" {
			t.Fatalf("release with another's lease: %v", r.data)
		}
		// The member's own name and token are accepted.
		if j := ok(t, a, "join_path", obj{"name": "guarded", "agent_id_override": "claude-code@ana-laptop"}); j.str("agent_id") != "claude-code@ana-laptop" {
			t.Fatalf("own override: %v", j.data)
		}
		j := ok(t, a, "join_path", obj{"name": "guarded", "reclaim_token": token})
		if j.str("agent_id") != "claude-code@ana-laptop" || j.data["reclaimed"] != true || j.str("reclaim_token") != token {
			t.Fatalf("own reclaim token: %v", j.data)
		}
		ok(t, a, "heartbeat", lease(turn))
		fails(t, a, "join_path", obj{"name": "guarded", "reclaim_token": "rt_00000000000000000000000000000000"}, stick.CodeInvalidArgument)
	})
}

// A request that reaches the handler without a principal is refused with
// 401, WWW-Authenticate and the hub's error body, code unauthenticated,
// and changes nothing; the SDK's client cannot connect.
func TestHTTPRefusesRequestsWithoutPrincipal(t *testing.T) {
	hb := newHub(t)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"join_path","arguments":{"name":"intruded"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}}`,
	} {
		for _, token := range []string{"", "secret-nobody"} {
			res, b := hb.post(t, token, "2026-07-28", "", body)
			var e struct {
				Error struct{ Code, Message, Hint string } `json:"error"`
			}
			if res.StatusCode != http.StatusUnauthorized || res.Header.Get("WWW-Authenticate") == "" || json.Unmarshal(b, &e) != nil ||
				e.Error.Code != string(stick.CodeUnauthenticated) || e.Error.Hint == "" {
				t.Fatalf("no principal: %d %v %s", res.StatusCode, res.Header, b)
			}
		}
	}
	for _, p := range protocols {
		if cs, err := hb.dial("secret-nobody", "claude-code", p.version); err == nil {
			cs.Close()
			t.Fatalf("%s protocol: a client without a credential connected", p.name)
		}
	}
	if rooms, err := hb.svc.ListRooms(context.Background(), ""); err != nil || len(rooms) != 0 || len(hb.principals()) != 0 {
		t.Fatalf("a refused request reached the service: %v %v", rooms, err)
	}
}

// A session of the older protocol belongs to the credential that opened
// it: another credential's request on it is refused, and Close ends it.
func TestHTTPSessionBelongsToItsCredential(t *testing.T) {
	hb := newHub(t)
	cs := hb.connect("secret-ana", "claude-code", legacyProtocol)
	ok(t, cs, "join_path", obj{"name": "mine"})
	for token, want := range map[string]int{"secret-bob": http.StatusForbidden, "secret-ana": http.StatusOK} {
		res, b := hb.post(t, token, legacyProtocol, cs.ID(), `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_rooms","arguments":{}}}`)
		if res.StatusCode != want {
			t.Fatalf("%s on ana's session: %d %s", token, res.StatusCode, b)
		}
	}
	hb.h.Close()
	if _, err := callErr(cs, "list_rooms", obj{}); err == nil {
		t.Fatal("a session outlived Close")
	}
}

// post sends body to the handler as a client of the Streamable HTTP
// transport would, with the bearer token ("" for none), the protocol
// version header and the session id ("" for none), and returns the
// response and its body.
func (hb *hub) post(t *testing.T, token, protocol, session, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, hb.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", protocol)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}
