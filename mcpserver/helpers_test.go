package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/internal/testkit"
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
	// db is the database file, for tests that read it through their own connection.
	db string
}

func newWorld(t *testing.T, harness procid.Identity) *world {
	return newWorldTB(t, t, harness)
}

// newWorldTB builds a world whose resources live as long as tb (a fuzz target's F).
func newWorldTB(tb testing.TB, t *testing.T, harness procid.Identity) *world {
	tb.Helper()
	st, err := store.OpenDir(tb.TempDir(), store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	w := &world{t: t, ctx: context.Background(), clock: testclock.New(epoch), db: st.Path()}
	if w.svc, err = stick.New(st, stick.WithClock(w.clock)); err != nil {
		tb.Fatal(err)
	}
	w.srv, err = mcpserver.New(mcpserver.Config{Service: w.svc, Harness: harness, Version: "test", ProgressEvery: 20 * time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	w.repo = mkRepo(tb)
	return w
}

// withoutLeaseKeeping replaces w's server by one that keeps no connection's
// lease alive, for tests that drive the clock past a connected holder's
// lease; call it before connecting.
func (w *world) withoutLeaseKeeping(harness procid.Identity) {
	w.t.Helper()
	srv, err := mcpserver.New(mcpserver.Config{Service: w.svc, Harness: harness, Version: "test", ProgressEvery: 20 * time.Millisecond, NoLeaseKeeping: true})
	if err != nil {
		w.t.Fatal(err)
	}
	w.srv = srv
}

// mkRepo returns a temporary git top level.
func mkRepo(t testing.TB) string { return testkit.Repo(t) }

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
	return w.connectTB(w.t, clientName, opts)
}

func (w *world) connectTB(t testing.TB, clientName string, opts ...*mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := w.srv.MCP().Connect(w.ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var o *mcp.ClientOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, o).Connect(w.ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
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

// callErr calls a tool and decodes its result, checking that the structured
// content validates against the tool's declared output schema (as clients
// do); safe in any goroutine.
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
	schema, err := outputSchema(cs, tool)
	if err != nil {
		return r, err
	}
	var instance any
	_ = json.Unmarshal(b, &instance)
	if err := schema.Validate(instance); err != nil {
		return r, fmt.Errorf("%s: result does not match the output schema: %v\n%s", tool, err, b)
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

var schemas sync.Map // tool name -> *jsonschema.Resolved

// outputSchema returns the resolved output schema of tool, as the server declares it.
func outputSchema(cs *mcp.ClientSession, tool string) (*jsonschema.Resolved, error) {
	if r, ok := schemas.Load(tool); ok {
		return r.(*jsonschema.Resolved), nil
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	for _, t := range res.Tools {
		raw, _ := json.Marshal(t.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("%s output schema: %v", t.Name, err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("%s output schema: %v", t.Name, err)
		}
		schemas.Store(t.Name, resolved)
	}
	r, ok := schemas.Load(tool)
	if !ok {
		return nil, fmt.Errorf("no tool %s", tool)
	}
	return r.(*jsonschema.Resolved), nil
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

// awaitCount waits until n reaches at least min, failing the test with
// msg after 10 s.
func awaitCount(t *testing.T, n *atomic.Int32, min int32, msg string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n.Load() < min {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
