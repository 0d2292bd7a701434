package proxy

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/wake"
)

// wokenProxy is a proxy whose harness can be woken.
func wokenProxy() *wakers {
	return &wakers{p: &Proxy{cfg: Config{Wake: []wake.Registration{wake.NewCodexQueue("019a-thread")}}}}
}

// The calls that wait in a room hold its wakes back: every wait_for_turn,
// a sync with wait_seconds; a sync that does not wait, and a call in
// another room, hold nothing. The room is idle again once the last one
// ended, and a loop waiting for that goes on at once.
func TestWaitsHoldWakes(t *testing.T) {
	w := wokenProxy()
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	busy := func(room string) bool {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		return !w.idle(ctx, room)
	}
	turn := w.calling("wait_for_turn", args(`{"room_id":"room_a","max_wait_ms":0}`))
	quick := w.calling("sync", args(`{"room_id":"room_a"}`))
	waitingSync := w.calling("sync", args(`{"room_id":"room_a","wait_seconds":30}`))
	other := w.calling("append_note", args(`{"room_id":"room_b","text":"x"}`))
	if !busy("room_a") || busy("room_b") {
		t.Fatalf("room_a busy %v, room_b busy %v; want room_a alone", busy("room_a"), busy("room_b"))
	}
	quick(nil)
	other(nil)
	turn(nil)
	turn(nil) // a second call of the same end counts once
	if !busy("room_a") {
		t.Fatal("room_a is idle while a sync waits there")
	}
	idle := make(chan bool)
	go func() { idle <- w.idle(context.Background(), "room_a") }()
	waitingSync(nil)
	select {
	case ok := <-idle:
		if !ok {
			t.Fatal("idle reported an end")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not go on once the last wait ended")
	}
}

// A wake claimed while a call waited is not delivered when a result gave
// the member what it was for: the notes addressed to it (a wait's
// addressed, a sync's cursor), the stick (a your_turn since the await
// began); it is when no result did.
func TestCoveredWakes(t *testing.T) {
	w := wokenProxy()
	result := func(m map[string]any) *mcp.CallToolResult { return &mcp.CallToolResult{StructuredContent: m} }
	note := func(seq int64) stick.WakeClaim {
		return stick.WakeClaim{RoomID: "room_a", Seq: seq, Why: stick.WakeAddressed}
	}
	handed := stick.WakeClaim{RoomID: "room_a", Seq: 9, Why: stick.WakeHanded}
	args := json.RawMessage(`{"room_id":"room_a","max_wait_ms":60000}`)
	before := w.turns("room_a")

	w.calling("wait_for_turn", args)(result(map[string]any{"status": "not_yet",
		"addressed": []any{map[string]any{"event_seq": 4.0}, map[string]any{"event_seq": 6.0}}}))
	if !w.covered("room_a", note(6), before) || w.covered("room_a", note(7), before) || w.covered("room_a", handed, before) {
		t.Fatal("a not_yet that carried the notes through 6")
	}
	w.calling("sync", json.RawMessage(`{"room_id":"room_a","wait_seconds":5}`))(result(map[string]any{"cursor": 8.0}))
	if !w.covered("room_a", note(8), before) || w.covered("room_a", note(9), before) {
		t.Fatal("a sync that read through 8")
	}
	w.calling("wait_for_turn", args)(&mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"status": "your_turn"}})
	if w.covered("room_a", handed, before) {
		t.Fatal("a failed wait granted the stick")
	}
	w.calling("wait_for_turn", args)(result(map[string]any{"status": "your_turn"}))
	if !w.covered("room_a", handed, before) || w.covered("room_a", handed, w.turns("room_a")) || w.covered("room_b", note(1), 0) {
		t.Fatal("a your_turn covers a handoff claimed after the await began, and only in its room")
	}
}

// A proxy whose harness cannot be woken counts no waits and starts no
// loop.
func TestNoWakeNoLoops(t *testing.T) {
	w := &wakers{p: &Proxy{}}
	w.calling("wait_for_turn", json.RawMessage(`{"room_id":"room_a"}`))(nil)
	w.follow("join_path", &mcp.CallToolResult{StructuredContent: map[string]any{"room_id": "room_a"}})
	if len(w.rooms) != 0 || len(w.loops) != 0 {
		t.Fatalf("rooms %v, loops %v", w.rooms, w.loops)
	}
}
