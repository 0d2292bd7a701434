package server_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/internal/pgtest"
)

// acrossGrace is the room's proxy grace in the tests of two hubs.
const acrossGrace = 500 * time.Millisecond

// holderAcrossHubs starts two hubs on one PostgreSQL database, on this
// host, and a room "across" with a proxy grace of acrossGrace: holder, a
// harness behind a proxy to hub A, holds the stick; peer, a harness
// behind a proxy to hub B, is a member too.
func holderAcrossHubs(t *testing.T) (holder, peer *remote, room string) {
	t.Helper()
	u := pgtest.URL(t)
	token := pgToken(t, u, "team", "--role", "operator")
	a, b := pgHub(t, u), pgHub(t, u)
	env := []string{"STICK_TOKEN=" + token}
	holder, peer = connect(t, a.url, "claude-code", env), connect(t, b.url, "codex", env)
	room = str(holder.ok("join_path", map[string]any{"name": "across"}), "room_id")
	peer.ok("join_path", map[string]any{"name": "across"})
	holder.ok("set_room_policy", map[string]any{"room_id": room, "proxy_grace_ms": acrossGrace.Milliseconds()})
	if turn := holder.ok("wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 0}); str(turn, "status") != "your_turn" {
		t.Fatalf("the holder through hub A: %v", turn)
	}
	return holder, peer, room
}

// Two hubs on one PostgreSQL database and one host: a harness behind a
// proxy to hub A holds the stick, another behind a proxy to hub B waits.
// Hub B has no stream of the holder's session, yet does not judge it
// gone after the room's grace while the proxy is connected to hub A (A
// marks the session in the database); once the holder's harness exits,
// hub A lets its mark go and the waiter on hub B sees owner_gone at once.
func TestHubsJudgeEachOthersProxies(t *testing.T) {
	holder, peer, room := holderAcrossHubs(t)
	waited := peer.wait(room, 60000)
	select {
	case w := <-waited:
		t.Fatalf("the waiter through hub B was answered while the holder's proxy is connected to hub A: %v", w)
	case <-time.After(6 * acrossGrace):
	}
	if st := peer.ok("get_room_state", map[string]any{"room_id": room}); str(st, "state") == "owner_gone" {
		t.Fatalf("hub B judges the holder gone while its proxy is connected to hub A: %v", st)
	}

	exited := time.Now()
	holder.killHarness()
	w := within(t, waited, "owner_gone on hub B after the holder's harness exited")
	if str(w, "status") != "takeover_available" || str(w, "reason") != "owner_gone" {
		t.Fatalf("the waiter through hub B after the holder's harness exited: %v", w)
	}
	t.Logf("owner_gone seen on hub B %v after the harness behind hub A exited", time.Since(exited))
	if st := peer.ok("get_room_state", map[string]any{"room_id": room}); str(st, "state") != "owner_gone" {
		t.Fatalf("state on hub B: %v", st)
	}
}

// The holder's proxy to hub A is SIGKILLed: hub A keeps its mark for the
// grace (the default one, as hub A never judged the session with the
// room's), in case the proxy comes back, then lets it go, and the waiter
// through hub B sees owner_gone, not before the room's grace.
func TestHubsProxyKilledAcross(t *testing.T) {
	holder, peer, room := holderAcrossHubs(t)
	waited := peer.wait(room, 60000)
	killed := time.Now()
	holder.killProxy()
	w := within(t, waited, "owner_gone on hub B after the holder's proxy was killed")
	took := time.Since(killed)
	if str(w, "status") != "takeover_available" || str(w, "reason") != "owner_gone" || took < acrossGrace {
		t.Fatalf("the waiter through hub B %v after the holder's proxy was killed: %v", took, w)
	}
	t.Logf("owner_gone seen on hub B %v after SIGKILL of the proxy to hub A", took)
}
