package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// Over HTTP, an agent's close_room in a room whose conclusion another
// member is responsible for hands that member the stick, and says so;
// that member's close_room with the conclusion closes the room.
func TestHTTPCloseAsksTheConcluder(t *testing.T) {
	inEachProtocol(t, func(t *testing.T, hb *hub, version string) {
		hb.mu.Lock()
		hb.restricted = true
		hb.mu.Unlock()
		a := hb.connect("secret-ana", "claude-code", version)
		b := hb.connect("secret-bob", "codex-mcp-client", version)
		ja := ok(t, a, "join_path", obj{"name": "release-review"})
		room := ja.str("room_id")
		ok(t, b, "join_path", obj{"name": "release-review"})
		if _, err := hb.svc.SetConcluder(t.Context(), stick.Caller{AgentID: ja.str("agent_id"), Kind: stick.KindHarness}, room, ja.str("agent_id")); err != nil {
			t.Fatal(err)
		}
		if st := ok(t, b, "get_room_state", obj{"room_id": room}); st.str("concluder") != "claude-code@ana-laptop" || !strings.Contains(st.text, "claude-code@ana-laptop is responsible for the conclusion") {
			t.Fatalf("state: %v\n%s", st.data, st.text)
		}
		ok(t, b, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
		asked := ok(t, b, "close_room", obj{"room_id": room, "reason": "reviewed", "conclusion": "Ship it."})
		if asked.data["conclusion_requested"] != true || asked.str("concluder") != "claude-code@ana-laptop" || asked.data["closed_at"] != nil ||
			!strings.Contains(asked.text, "asked to close room_id "+room) {
			t.Fatalf("close by bob: %v\n%s", asked.data, asked.text)
		}
		turn := ok(t, a, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
		if h, _ := turn.data["handoff"].(map[string]any); turn.str("status") != "your_turn" || !strings.Contains(h["status"].(string), "Ship it.") {
			t.Fatalf("ana's turn: %v", turn.data)
		}
		fails(t, a, "close_room", obj{"room_id": room}, stick.CodeInvalidArgument)
		done := ok(t, a, "close_room", obj{"room_id": room, "conclusion": "Shipped 1.4."})
		if done.data["conclusion_requested"] != nil || done.str("closed_at") == "" || !strings.Contains(done.text, "closed room_id") {
			t.Fatalf("close by ana: %v\n%s", done.data, done.text)
		}
	})
}
