package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
)

// A connection's identity is fixed at its first call: a later request that
// carries another client name in its _meta cannot act as another agent.
func TestIdentityFixedPerConnection(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("codex", nil)
	first := ok(t, cs, "join_path", obj{"context_path": w.repo}).str("agent_id")
	params := &mcp.CallToolParams{Name: "join_path", Arguments: obj{"context_path": w.repo}}
	params.Meta = mcp.Meta{"io.modelcontextprotocol/clientInfo": map[string]any{"name": "claude-code", "version": "1"}}
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	if got := res.StructuredContent.(map[string]any)["agent_id"]; got != first {
		t.Fatalf("the identity changed within one connection: %v -> %v", first, got)
	}
}

// Cancelling Run's context (SIGTERM, SIGINT) ends a wait in progress at once.
func TestRunCancelEndsWait(t *testing.T) {
	w := newWorld(t, self(t))
	holder := w.connect("codex", nil)
	room := ok(t, holder, "join_path", obj{"context_path": w.repo}).str("room_id")
	ok(t, holder, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})

	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ok(t, cs, "join_path", obj{"context_path": w.repo})
	waited := make(chan result, 1)
	go func() {
		r, _ := callErr(cs, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 600000})
		waited <- r
	}()
	w.settleWaiters(t)
	start := time.Now()
	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended while a wait was in progress")
	}
	t.Logf("Run returned %v after cancel", time.Since(start))
}

// settleWaiters waits (as a safety net only) until a wait has armed its timers.
func (w *world) settleWaiters(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	for w.clock.Timers() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no wait blocked")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestArgumentDecoding(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("codex", nil)
	room := ok(t, cs, "join_path", obj{"context_path": w.repo}).str("room_id")
	// Field names are exact, at every depth.
	if r := fails(t, cs, "get_room_state", obj{"ROOM_ID": room}, stick.CodeInvalidArgument); r.errDetail("field") != "ROOM_ID" {
		t.Fatal(r.text)
	}
	first := ok(t, cs, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0.0})
	r := fails(t, cs, "release_stick", with(lease(first), "handoff", obj{"Status": "x", "next_action": "y"}), stick.CodeInvalidArgument)
	if r.errDetail("field") != "handoff.Status" {
		t.Fatal(r.text)
	}
	// Integral numbers are integers; fractions and huge values are not.
	ok(t, cs, "heartbeat", with(lease(first), "expected_turn_id", 1.0))
	fails(t, cs, "heartbeat", with(lease(first), "expected_turn_id", 1.5), stick.CodeInvalidArgument)
	if r := fails(t, cs, "set_room_policy", obj{"room_id": room, "claim_ttl_ms": 18446744073810}, stick.CodeInvalidArgument); r.errDetail("field") != "claim_ttl_ms" {
		t.Fatal(r.text)
	}
	if r := fails(t, cs, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 9223372036855}, stick.CodeInvalidArgument); r.errDetail("field") != "max_wait_ms" {
		t.Fatal(r.text)
	}
	// Arguments must be an object.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_room_state", Arguments: []any{room}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "invalid_argument") {
		t.Fatalf("array arguments: %v %v", err, res)
	}
}

// After an override, later joins on the connection stay flagged.
func TestOverrideStaysFlagged(t *testing.T) {
	w := newWorld(t, self(t))
	cs := w.connect("codex", nil)
	room := ok(t, cs, "join_path", obj{"context_path": w.repo, "agent_id_override": "tester"}).str("room_id")
	ok(t, cs, "close_room", obj{"room_id": room})
	again := ok(t, cs, "join_path", obj{"context_path": w.repo})
	if again.str("agent_id") != "tester" {
		t.Fatalf("%v", again.data)
	}
	ev := ok(t, cs, "get_room_events", obj{"room_id": again.str("room_id")})
	if !strings.Contains(ev.text, "join by tester") {
		t.Fatal(ev.text)
	}
	page, err := w.svc.RoomEvents(context.Background(), again.str("room_id"), 0, 0)
	if err != nil || len(page.Events) != 1 || !strings.Contains(string(page.Events[0].Data), `"override":true`) {
		t.Fatalf("the join must be flagged as overridden: %+v %v", page.Events, err)
	}
	_ = mcpserver.Instructions
}
