package mcpserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
)

// Two 'stick mcp' processes started by one harness process (one per chat
// tab) are two members: the second live one gets an id of its own, and
// only one of them gets the turn. A server started after the first one has
// exited gets the first id again.
func TestE2ETwoServersOneHarness(t *testing.T) {
	data, repo := t.TempDir(), mkRepo(t)
	first, cmd := startServer(t, data, "claude-code")
	second := spawn(t, data, "claude-code")
	room, ids := joinAll(t, repo, first, second)
	want := identity.AgentID("claude-code", self(t), identity.SessionID(os.Getenv))
	if ids[0] != want || ids[1] == want || !strings.HasPrefix(ids[1], "claude-code:") {
		t.Fatalf("two live servers of one harness: ids %v, want %s and another", ids, want)
	}
	a := ok(t, first, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	b := ok(t, second, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if a.str("status") != "your_turn" || b.str("status") != "not_yet" || b.str("current_owner") != ids[0] {
		t.Fatalf("both servers acted as one member: %s / %s", a.text, b.text)
	}
	if fi, err := os.Stat(filepath.Join(data, "instances")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("instances dir: %v %v", fi, err)
	}

	_ = first.Close() // the first server exits
	if cmd.ProcessState == nil {
		t.Fatal("the first server is still running")
	}
	third := spawn(t, data, "claude-code")
	back := ok(t, third, "join_path", obj{"context_path": repo})
	if back.str("agent_id") != ids[0] {
		t.Fatalf("a server started after the first exited gets its id: %s, want %s", back.str("agent_id"), ids[0])
	}
	if w := ok(t, third, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}); w.str("status") != "your_turn" {
		t.Fatalf("it is that member, holder included: %s", w.text)
	}
}
