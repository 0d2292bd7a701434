package mcpserver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A waiting client that asked for progress hears from the server while it
// waits, and the wait returns as soon as the stick is released to it.
func TestWaitReportsProgressAndReturnsOnRelease(t *testing.T) {
	w := newWorld(t, self(t))
	var progress atomic.Int32
	waiter := w.connect("claude-code", &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if req.Params.ProgressToken == "tok" && req.Params.Message != "" {
				progress.Add(1)
			}
		},
	})
	holder := w.connect("codex", nil)
	room := ok(t, holder, "join_path", obj{"context_path": w.repo}).str("room_id")
	ok(t, waiter, "join_path", obj{"context_path": w.repo})
	first := ok(t, holder, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})

	done := make(chan result, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "wait_for_turn", Arguments: obj{"room_id": room}}
		params.SetProgressToken("tok")
		res, err := waiter.CallTool(context.Background(), params)
		if err != nil {
			t.Error(err)
		}
		done <- result{raw: res}
	}()
	awaitCount(t, &progress, 2, "no progress notifications while waiting")
	ok(t, holder, "release_stick", with(lease(first), "handoff", handoff("over to you")))
	select {
	case r := <-done:
		if r.raw.IsError {
			t.Fatalf("wait: %v", r.raw.Content)
		}
		if sc, _ := r.raw.StructuredContent.(map[string]any); sc["status"] != "your_turn" {
			t.Fatalf("wait: %v", r.raw.StructuredContent)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not return after the release")
	}
}

// A client that cancels its wait gets control back at once, and the
// connection stays usable.
func TestWaitStopsWhenCancelled(t *testing.T) {
	w := newWorld(t, self(t))
	holder := w.connect("codex", nil)
	waiter := w.connect("claude-code", nil)
	room := ok(t, holder, "join_path", obj{"context_path": w.repo}).str("room_id")
	ok(t, waiter, "join_path", obj{"context_path": w.repo})
	ok(t, holder, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := waiter.CallTool(ctx, &mcp.CallToolParams{Name: "wait_for_turn", Arguments: obj{"room_id": room}})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the call reach the server; correctness does not depend on it
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled wait: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled wait did not return")
	}
	if r := ok(t, waiter, "get_room_state", obj{"room_id": room}); r.str("state") != "owned" {
		t.Fatalf("the connection must stay usable: %v", r.data)
	}
}
