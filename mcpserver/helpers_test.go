package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

var epoch = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// world is one in-process MCP server over a real database, with a manual clock.
type world struct {
	t     *testing.T
	ctx   context.Context
	clock *testclock.Clock
	svc   *stick.Service
	srv   *mcpserver.Server
	repo  string
}

func newWorld(t *testing.T, harness procid.Identity) *world {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := &world{t: t, ctx: context.Background(), clock: testclock.New(epoch)}
	if w.svc, err = stick.New(st, stick.WithClock(w.clock)); err != nil {
		t.Fatal(err)
	}
	w.srv, err = mcpserver.New(mcpserver.Config{Service: w.svc, Harness: harness, Version: "test", ProgressEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	w.repo = mkRepo(t)
	return w
}

func mkRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func self(t testing.TB) procid.Identity {
	id, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// connect opens a client session named clientName over in-memory transports.
func (w *world) connect(clientName string, opts *mcp.ClientOptions) *mcp.ClientSession {
	w.t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := w.srv.MCP().Connect(w.ctx, st, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, opts).Connect(w.ctx, ct, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// result is a decoded tool result.
type result struct {
	raw  *mcp.CallToolResult
	data map[string]any
	text string
}

func (r result) str(key string) string { s, _ := r.data[key].(string); return s }

func (r result) num(key string) int64 { n, _ := r.data[key].(float64); return int64(n) }

func (r result) errCode() string {
	e, _ := r.data["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

func (r result) errDetail(key string) any {
	e, _ := r.data["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d[key]
}

func call(t testing.TB, cs *mcp.ClientSession, tool string, args any) result {
	t.Helper()
	r, err := callErr(cs, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// callErr calls a tool and decodes its result; safe in any goroutine.
func callErr(cs *mcp.ClientSession, tool string, args any) (result, error) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return result{}, fmt.Errorf("%s: protocol error %v", tool, err)
	}
	r := result{raw: res}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &r.data); err != nil || r.data == nil {
		return r, fmt.Errorf("%s: no structured content: %s", tool, b)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if r.text == "" {
		return r, fmt.Errorf("%s: no text content", tool)
	}
	return r, nil
}

// ok calls a tool and fails the test if it returned an error result.
func ok(t testing.TB, cs *mcp.ClientSession, tool string, args any) result {
	t.Helper()
	r := call(t, cs, tool, args)
	if r.raw.IsError {
		t.Fatalf("%s: %s", tool, r.text)
	}
	return r
}

// fails calls a tool and asserts it failed with code.
func fails(t testing.TB, cs *mcp.ClientSession, tool string, args any, code stick.Code) result {
	t.Helper()
	r := call(t, cs, tool, args)
	if !r.raw.IsError || r.errCode() != string(code) {
		t.Fatalf("%s: want error %s, got isError=%v %s", tool, code, r.raw.IsError, r.text)
	}
	if !strings.Contains(r.text, string(code)) {
		t.Fatalf("%s: the text must name the code: %s", tool, r.text)
	}
	return r
}

type obj = map[string]any

func handoff(status string) obj {
	return obj{"status": status, "next_action": "continue after " + status}
}

func lease(r result) obj {
	return obj{"room_id": r.str("room_id"), "lease_id": r.str("lease_id"), "expected_turn_id": r.num("turn_id")}
}

func with(base obj, kv ...any) obj {
	out := obj{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}
