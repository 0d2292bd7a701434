package proxy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/stick"
)

// The proxy follows the leases its harness holds from the results it
// passes on: a your_turn or a takeover is a lease to keep, told to the hub
// on the stream up; a release, pass, leave or close ends the room's; a
// failed call, a not_yet, or a result without a room changes nothing.
func TestFollowLeases(t *testing.T) {
	s := newStream(&Proxy{})
	out := make(chan liveness.Message, 8)
	s.out = out
	result := func(isErr bool, m map[string]any) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: isErr, StructuredContent: m}
	}
	s.follow("wait_for_turn", result(false, map[string]any{"status": "your_turn", "room_id": "room_a", "lease_id": "lease_1", "turn_id": 3.0}))
	s.follow("wait_for_turn", result(false, map[string]any{"status": "not_yet", "room_id": "room_b", "lease_id": "", "turn_id": 0.0}))
	s.follow("takeover_stick", result(false, map[string]any{"room_id": "room_b", "lease_id": "lease_2", "turn_id": 4.0}))
	s.follow("release_stick", result(true, map[string]any{"error": map[string]any{"code": "stale_lease"}}))
	s.follow("heartbeat", result(false, map[string]any{"room_id": "room_a"}))
	want := map[string]stick.Lease{"room_a": {RoomID: "room_a", LeaseID: "lease_1", TurnID: 3}, "room_b": {RoomID: "room_b", LeaseID: "lease_2", TurnID: 4}}
	if fmt.Sprint(s.leases) != fmt.Sprint(want) {
		t.Fatalf("leases: %v", s.leases)
	}
	s.follow("release_stick", result(false, map[string]any{"room_id": "room_a"}))
	s.out = nil
	s.follow("close_room", result(false, map[string]any{"room_id": "room_b"}))
	if len(s.leases) != 0 {
		t.Fatalf("leases after the release and the close: %v", s.leases)
	}
	close(out)
	var told []string
	for m := range out {
		told = append(told, m.Type+" "+m.RoomID)
		if m.Lease != nil {
			told[len(told)-1] += m.Lease.RoomID
		}
	}
	if fmt.Sprint(told) != "[keep room_a keep room_b end room_a]" {
		t.Fatalf("told the hub: %v", told)
	}
}

// The hub's JSON-RPC errors are its answers, passed on; the SDK's own codes
// for a connection that failed are not, and their calls are sent again.
func TestAnswered(t *testing.T) {
	for err, want := range map[error]bool{
		&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool"}:     true,
		fmt.Errorf("calling: %w", &jsonrpc.Error{Code: -32005, Message: "rejected"}): false,
		&jsonrpc.Error{Code: -32004, Message: "server is closing"}:                   false,
		errors.New("EOF"): false,
	} {
		if answered(err) != want {
			t.Errorf("answered(%v) = %v", err, !want)
		}
	}
}

// A hub's URL must be http or https.
func TestNewRefusesURLs(t *testing.T) {
	for _, u := range []string{"", "stick.example.com", "ftp://hub", "http://", "https://hub?x=1"} {
		if _, err := New(Config{Server: u}); stick.ErrorCode(err) != stick.CodeInvalidArgument {
			t.Errorf("%q: %v", u, err)
		}
	}
	if _, err := New(Config{Server: "https://hub/prefix/"}); err != nil {
		t.Fatal(err)
	}
}
