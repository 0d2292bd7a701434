package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
)

// withBearer sends every request with a bearer token.
type withBearer struct{ secret string }

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.secret)
	return http.DefaultTransport.RoundTrip(r)
}

// dialMCP connects an MCP client named client to the hub's /mcp with a
// token.
func dialMCP(t *testing.T, h *hub, secret, client string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp", HTTPClient: &http.Client{Transport: withBearer{secret}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1.0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect %s to %s/mcp: %v", client, h.url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result; a tool error fails
// the test unless wantErr names its code, which must then be the code.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, wantErr stick.Code) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	if res.IsError != (wantErr != "") {
		t.Fatalf("%s: isError %v, want error %q: %s", tool, res.IsError, wantErr, raw)
	}
	if wantErr != "" {
		if e, _ := out["error"].(map[string]any); e["code"] != string(wantErr) {
			t.Fatalf("%s: error %v, want code %s", tool, out["error"], wantErr)
		}
	}
	return out
}

// MCP through a real hub: two agents with their own tokens take a turn by
// name through /mcp, the handoff reaches the other; a viewer's token reads
// but may not join; a call without a token is refused with 401.
func TestMCPThroughTheHub(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	secrets, env := makeTokens(t, data,
		tokenSpec{"Alex's Team", stick.AccessAgent}, tokenSpec{"ops", stick.AccessAgent}, tokenSpec{"dashboard", stick.AccessViewer})
	h := startHub(t, data, env)

	alex := dialMCP(t, h, secrets["Alex's Team"], "claude-code")
	ops := dialMCP(t, h, secrets["ops"], "codex")
	tools, err := alex.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) < 20 {
		t.Fatalf("tools/list through the hub: %d tools, %v", len(tools.Tools), err)
	}

	a := call(t, alex, "join_path", map[string]any{"name": "release-1.4-review"}, "")
	room := a["room_id"].(string)
	if id := a["agent_id"].(string); !strings.HasSuffix(id, "@alex-s-team") || !strings.HasPrefix(id, "claude-code") {
		t.Fatalf("the member of Alex's token through claude-code is %q", id)
	}
	call(t, ops, "join_path", map[string]any{"name": "release-1.4-review"}, "")
	turn := call(t, alex, "wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 5000}, "")
	if turn["status"] != "your_turn" {
		t.Fatalf("the first member's wait: %v", turn)
	}
	call(t, alex, "release_stick", map[string]any{"room_id": room, "lease_id": turn["lease_id"], "expected_turn_id": turn["turn_id"],
		"handoff": map[string]any{"status": "reviewed the changelog", "next_action": "ops: check the migration notes"}}, "")
	got := call(t, ops, "wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 5000}, "")
	h2, _ := got["handoff"].(map[string]any)
	if got["status"] != "your_turn" || h2["status"] != "reviewed the changelog" {
		t.Fatalf("the second member's wait: %v", got)
	}
	// A stale lease through the hub is the code stdio gives.
	call(t, alex, "heartbeat", map[string]any{"room_id": room, "lease_id": turn["lease_id"], "expected_turn_id": turn["turn_id"]}, stick.CodeTurnMismatch)

	viewer := dialMCP(t, h, secrets["dashboard"], "dashboard")
	if st := call(t, viewer, "get_room_state", map[string]any{"room_id": room}, ""); st["state"] != "owned" {
		t.Fatalf("the viewer reads the room: %v", st)
	}
	call(t, viewer, "join_path", map[string]any{"name": "release-1.4-review"}, stick.CodeForbidden)

	resp, err := http.Post(h.url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("/mcp without a token: %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}
