package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
)

// connectTo opens a client session named clientName to srv over in-memory transports.
func connectTo(t *testing.T, srv *mcpserver.Server, clientName string) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// member returns the member agentID of a get_room_state or join result's room.
func member(t *testing.T, members any, agentID string) map[string]any {
	t.Helper()
	list, _ := members.([]any)
	for _, m := range list {
		if mm := m.(map[string]any); mm["agent_id"] == agentID {
			return mm
		}
	}
	t.Fatalf("%s is not among the members %v", agentID, members)
	return nil
}

// syncAll syncs until has_more is false and returns the cursor and every event received.
func syncAll(t *testing.T, cs *mcp.ClientSession, room string) (int64, []map[string]any) {
	t.Helper()
	var got []map[string]any
	for {
		r := ok(t, cs, "sync", obj{"room_id": room})
		list, _ := r.data["received"].([]any)
		for _, e := range list {
			got = append(got, e.(map[string]any))
		}
		if r.data["has_more"] != true {
			return r.num("cursor"), got
		}
	}
}

// A reclaim_token makes another server's connection (another harness
// process) that member again, in the token's room for the rest of the
// connection, without flagging it as an override; the member's name is refused without the
// token; and the connection that lost the member's process facts still
// joins as it, by the token it holds.
func TestReclaimIdentity(t *testing.T) {
	w := newWorld(t, self(t))
	other, _ := otherHarness(t, w)
	peer := w.connect("codex", nil)
	room := ok(t, peer, "join_path", obj{"context_path": w.repo}).str("room_id")
	a := w.connect("claude-code", nil)
	j := ok(t, a, "join_path", obj{"context_path": w.repo, "agent_id_override": "keeper"})
	token := j.str("reclaim_token")
	if j.str("agent_id") != "keeper" || !strings.HasPrefix(token, "rt_") || j.data["reclaimed"] != nil {
		t.Fatalf("join: %v", j.data)
	}
	if !strings.Contains(j.text, "reclaim_token="+token) || !strings.Contains(j.text, "after a restart") {
		t.Fatalf("the join text must carry the reclaim token: %s", j.text)
	}
	ordinal := member(t, j.data["room"].(map[string]any)["members"], "keeper")["ordinal"]
	ok(t, a, "append_note", obj{"room_id": room, "text": "before the restart"})
	cursor, _ := syncAll(t, a, room)
	ok(t, peer, "append_note", obj{"room_id": room, "text": "while you were away"})

	b := connectTo(t, other, "claude-code")
	if r := fails(t, b, "join_path", obj{"context_path": w.repo, "agent_id_override": "keeper"}, stick.CodeAgentIDInUse); r.errDetail("agent_id") != "keeper" || r.errDetail("room_id") != room {
		t.Fatalf("agent_id_in_use: %s", r.text)
	}
	for _, args := range []obj{
		{"context_path": w.repo, "agent_id_override": "keeper", "reclaim_token": "rt_wrong"},
		{"context_path": w.repo, "reclaim_token": "rt_wrong"},
		{"context_path": w.repo, "agent_id_override": "someone-else", "reclaim_token": token},
	} {
		if r := fails(t, b, "join_path", args, stick.CodeInvalidArgument); r.errDetail("field") != "reclaim_token" {
			t.Fatalf("%v: %s", args, r.text)
		}
	}
	back := ok(t, b, "join_path", obj{"context_path": w.repo, "reclaim_token": token})
	if back.str("agent_id") != "keeper" || back.data["reclaimed"] != true || back.data["new_member"] != false || back.str("reclaim_token") != token ||
		!strings.Contains(back.text, "reclaimed: you are member keeper again") || !strings.Contains(back.str("next_step"), "sync") {
		t.Fatalf("reclaim: %v %s", back.data, back.text)
	}
	st := ok(t, b, "get_room_state", obj{"room_id": room})
	if got := member(t, st.data["members"], "keeper")["ordinal"]; got != ordinal || len(st.data["members"].([]any)) != 2 {
		t.Fatalf("the reclaimed member keeps its place (ordinal %v): %v", ordinal, st.data["members"])
	}
	// The connection acts as keeper from now on, from keeper's cursor.
	_, got := syncAll(t, b, room)
	if len(got) != 1 || got[0]["text"] != "while you were away" || got[0]["event_seq"].(float64) <= float64(cursor) {
		t.Fatalf("sync after the reclaim must go on from cursor %d: %v", cursor, got)
	}
	if n := ok(t, b, "append_note", obj{"room_id": room, "text": "back"}); n.data["event"].(map[string]any)["from_agent_id"] != "keeper" {
		t.Fatalf("later calls act as the reclaimed member: %v", n.data)
	}
	page, err := w.svc.RoomEvents(context.Background(), room, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var join map[string]any
	for _, e := range page.Events {
		if e.Type == stick.EventJoin && e.From == "keeper" {
			_ = json.Unmarshal(e.Data, &join)
		}
	}
	if join["reclaimed"] != true || join["override"] != false {
		t.Fatalf("a reclaim is flagged as such, not as an override: %v", join)
	}
	// A later join keeps the identity, with nothing to prove.
	if again := ok(t, b, "join_path", obj{"context_path": w.repo}); again.str("agent_id") != "keeper" || again.data["reclaimed"] != nil {
		t.Fatalf("a later join: %v", again.data)
	}
	// The first connection's override now names a member whose process is
	// the other server's harness; the token it was given still proves it.
	if again := ok(t, a, "join_path", obj{"context_path": w.repo}); again.str("agent_id") != "keeper" {
		t.Fatalf("the first connection's later join: %v", again.data)
	}
	// In a room where it holds no token, the name stays refused.
	nested := mkRepo(t)
	ok(t, b, "join_path", obj{"context_path": nested})
	fails(t, a, "join_path", obj{"context_path": nested}, stick.CodeAgentIDInUse)
}

// relay: args data. A stand-in for a harness process that is not the test:
// it runs 'stick mcp' on its own stdin and stdout, so the server's harness
// (its parent) is this process, and exits with it.
func relay(args []string) int {
	cmd := exec.Command(stickBin, "mcp")
	cmd.Env = append(os.Environ(), "TALKING_STICK_DATA_DIR="+args[0])
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if cmd.ProcessState != nil {
			return cmd.ProcessState.ExitCode()
		}
		return 1
	}
	return 0
}

// startServer starts a real 'stick mcp' process on data, connected as clientName,
// and returns it with its command, so the test can kill it.
func startServer(t *testing.T, data, clientName string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(stickBin, "mcp")
	cmd.Env = append(os.Environ(), "TALKING_STICK_DATA_DIR="+data)
	cmd.Stderr = os.Stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatalf("start stick mcp for %s: %v", clientName, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

// A member's 'stick mcp' is SIGKILLed and a new one started: join_path with
// the reclaim_token makes the new connection that member again, in the
// same place of the sequence, and sync goes on from the old cursor. Another
// harness may not take the member's name without the token.
func TestE2EReclaimAfterRestart(t *testing.T) {
	data, repo := t.TempDir(), mkRepo(t)
	peer := spawn(t, data, "codex-mcp-client")
	room := ok(t, peer, "join_path", obj{"context_path": repo}).str("room_id")

	first, cmd := startServer(t, data, "claude-code")
	j := ok(t, first, "join_path", obj{"context_path": repo, "agent_id_override": "restarter"})
	token := j.str("reclaim_token")
	if j.str("agent_id") != "restarter" || token == "" || !strings.Contains(j.text, "reclaim_token="+token) {
		t.Fatalf("join: %v %s", j.data, j.text)
	}
	ordinal := member(t, ok(t, first, "get_room_state", obj{"room_id": room}).data["members"], "restarter")["ordinal"]
	ok(t, first, "append_note", obj{"room_id": room, "text": "before the crash"})
	ok(t, peer, "append_note", obj{"room_id": room, "text": "seen before the crash"})
	cursor, seen := syncAll(t, first, room)
	if len(seen) == 0 || cursor == 0 {
		t.Fatalf("the first sync: cursor %d, %v", cursor, seen)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Close() // reaps the killed server
	if cmd.ProcessState == nil || cmd.ProcessState.Success() {
		t.Fatalf("the server was not killed: %v", cmd.ProcessState)
	}
	ok(t, peer, "append_note", obj{"room_id": room, "text": "while the server was down"})

	second, _ := startServer(t, data, "claude-code")
	back := ok(t, second, "join_path", obj{"context_path": repo, "reclaim_token": token})
	if back.str("agent_id") != "restarter" || back.data["reclaimed"] != true || back.str("room_id") != room {
		t.Fatalf("reclaim: %v %s", back.data, back.text)
	}
	if got := member(t, ok(t, second, "get_room_state", obj{"room_id": room}).data["members"], "restarter")["ordinal"]; got != ordinal {
		t.Fatalf("ordinal %v after the restart, want %v", got, ordinal)
	}
	after, got := syncAll(t, second, room)
	if len(got) != 1 || got[0]["text"] != "while the server was down" || after <= cursor {
		t.Fatalf("sync must go on from cursor %d without replay: cursor %d, %v", cursor, after, got)
	}
	if n := ok(t, second, "append_note", obj{"room_id": room, "text": "back"}); n.data["event"].(map[string]any)["from_agent_id"] != "restarter" {
		t.Fatalf("later calls act as the reclaimed member: %v", n.data)
	}
	if again := ok(t, second, "join_path", obj{"context_path": repo}); again.str("agent_id") != "restarter" {
		t.Fatalf("a later join on the connection: %v", again.data)
	}

	// Another harness process: its server's parent is the relay, not this test.
	rc := testproc.Command(t, "relay", data)
	rc.Stderr = os.Stderr
	intruder, err := mcp.NewClient(&mcp.Implementation{Name: "gemini-cli", Version: "1.0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: rc, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { intruder.Close() })
	if r := fails(t, intruder, "join_path", obj{"context_path": repo, "agent_id_override": "restarter"}, stick.CodeAgentIDInUse); r.errDetail("agent_id") != "restarter" {
		t.Fatalf("agent_id_in_use: %s", r.text)
	}
	if r := fails(t, intruder, "join_path", obj{"context_path": repo, "agent_id_override": "restarter", "reclaim_token": "rt_wrong"}, stick.CodeInvalidArgument); r.errDetail("field") != "reclaim_token" {
		t.Fatalf("a wrong token: %s", r.text)
	}
	if own := ok(t, intruder, "join_path", obj{"context_path": repo}); own.str("agent_id") == "restarter" || !strings.HasPrefix(own.str("agent_id"), "gemini:") {
		t.Fatalf("the intruder joins as itself: %v", own.data)
	}
}

// TestReclaimAfterJoiningAsNew: a restarted harness that first joined
// under its new derived identity and then reclaims its old one leaves no
// member behind that would be given turns nobody takes.
func TestReclaimAfterJoiningAsNew(t *testing.T) {
	w := newWorld(t, self(t))
	other, _ := otherHarness(t, w)
	peer := w.connect("codex", nil)
	pj := ok(t, peer, "join_path", obj{"context_path": w.repo})
	room, peerID := pj.str("room_id"), pj.str("agent_id")
	old := w.connect("claude-code", nil)
	token := ok(t, old, "join_path", obj{"context_path": w.repo, "agent_id_override": "keeper"}).str("reclaim_token")

	b := connectTo(t, other, "claude-code")
	derived := ok(t, b, "join_path", obj{"context_path": w.repo}).str("agent_id")
	back := ok(t, b, "join_path", obj{"context_path": w.repo, "reclaim_token": token})
	if back.str("agent_id") != "keeper" {
		t.Fatalf("reclaim: %v", back.data)
	}
	ids := map[string]bool{}
	for _, m := range ok(t, b, "get_room_state", obj{"room_id": room}).data["members"].([]any) {
		ids[m.(map[string]any)["agent_id"].(string)] = true
	}
	if ids[derived] || !ids["keeper"] || len(ids) != 2 {
		t.Fatalf("the member this connection joined as before the reclaim must leave: %v", ids)
	}
	turn := ok(t, b, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	if turn.str("status") != "your_turn" {
		t.Fatalf("keeper claims: %v", turn.data)
	}
	rel := ok(t, b, "release_stick", obj{"room_id": room, "lease_id": turn.str("lease_id"), "expected_turn_id": turn.num("turn_id"),
		"handoff": obj{"status": "s", "next_action": "n"}})
	if to := rel.str("reserved_for"); to != peerID {
		t.Fatalf("the stick must go to the peer, not to the member that left (%s): %v", derived, rel.data)
	}
}
