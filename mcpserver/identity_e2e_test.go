package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/testproc"
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

// A harness restarted in the same workspace (a new process, the old one
// gone) becomes its old member again without a reclaim token: same
// agent_id, sync cursor, place and turn. A member whose harness is alive is
// never taken. The records are owner-only.
func TestE2EFoundAgainAfterRestart(t *testing.T) {
	data, repo := t.TempDir(), mkRepo(t)
	peer := spawn(t, data, "codex-mcp-client")
	room := ok(t, peer, "join_path", obj{"context_path": repo}).str("room_id")
	ok(t, peer, "append_note", obj{"room_id": room, "text": "before the restart"})

	old := startMember(t, data, repo)
	oldID, oldCursor := old.joined[1], old.synced[1]
	if old.joined[2] != "false" || old.synced[2] != "1" || old.turn[1] != "your_turn" {
		t.Fatalf("the first harness: %v %v %v", old.joined, old.synced, old.turn)
	}
	// Another harness of the same kind while the first lives: its own member.
	live := startMember(t, data, repo)
	if live.joined[1] == oldID || live.joined[2] != "false" || live.turn[1] != "not_yet" {
		t.Fatalf("a live member was taken over: %v %v", live.joined, live.turn)
	}
	files := 0
	err := filepath.Walk(filepath.Join(data, "members"), func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			files++
		}
		if fi.IsDir() && fi.Mode().Perm() != 0o700 || !fi.IsDir() && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want owner-only", path, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil || files != 3 { // the peer, the first harness and the live one
		t.Fatalf("want a record for each of the three members: %d files, %v", files, err)
	}
	ordinal := member(t, ok(t, peer, "get_room_state", obj{"room_id": room}).data["members"], oldID)["ordinal"]

	ok(t, peer, "append_note", obj{"room_id": room, "text": "while you were away"})
	if err := old.proc.Kill(); err != nil {
		t.Fatal(err)
	}
	back := startMember(t, data, repo)
	if back.joined[1] != oldID || back.joined[2] != "true" || back.joined[3] != oldID || back.joined[4] != "true" {
		t.Fatalf("the restarted harness must be member %s again, holding the stick: %v", oldID, back.joined)
	}
	if back.synced[2] != "1" || back.synced[3] != "while you were away" || atoi(back.synced[1]) <= atoi(oldCursor) {
		t.Fatalf("sync must go on from cursor %s: %v", oldCursor, back.synced)
	}
	if back.turn[1] != "your_turn" {
		t.Fatalf("the turn follows the member: %v", back.turn)
	}
	st := ok(t, peer, "get_room_state", obj{"room_id": room})
	if n := len(st.data["members"].([]any)); n != 3 || member(t, st.data["members"], oldID)["ordinal"] != ordinal {
		t.Fatalf("the member keeps its place (ordinal %v) and none is added: %v", ordinal, st.data["members"])
	}
}

// memberRun is what a 'member' helper printed.
type memberRun struct {
	proc                 *testproc.Proc
	joined, synced, turn []string
}

// startMember starts a 'member' helper harness and reads its report.
func startMember(t *testing.T, data, repo string) memberRun {
	t.Helper()
	r := memberRun{proc: testproc.Start(t, "member", data, repo, "claude-code")}
	for _, dst := range []*[]string{&r.joined, &r.synced, &r.turn} {
		line, err := r.proc.ReadLine(30 * time.Second)
		if err != nil || strings.HasPrefix(line, "error") {
			t.Fatalf("member harness: %q %v %s", line, err, r.proc.Stderr())
		}
		*dst = strings.Split(line, "\t")
	}
	return r
}

// mustJoin calls join_path and returns its structured result and text.
func mustJoin(cs *mcp.ClientSession, args any) (map[string]any, string) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "join_path", Arguments: args})
	if err != nil || res.IsError {
		fmt.Println("error join_path", err, res)
		os.Exit(1)
	}
	return res.StructuredContent.(map[string]any), res.Content[0].(*mcp.TextContent).Text
}

// member: args data repo clientName. A stand-in for a harness restarted in
// a workspace: it starts its own 'stick mcp', joins without a token and
// prints "joined <agent_id> <found_again> <holder> <text says found again>", syncs and prints
// "synced <cursor> <events> <texts>", tries for the turn and prints
// "turn <status>", then blocks until it is killed.
func memberHarness(args []string) int {
	cs, err := dial(context.Background(), args[0], args[2])
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	j, text := mustJoin(cs, obj{"context_path": args[1]})
	room := j["room_id"]
	owner, _ := j["room"].(map[string]any)["owner"].(string)
	fmt.Printf("joined\t%s\t%v\t%s\t%v\n", j["agent_id"], j["found_again"] == true, owner, strings.Contains(text, "found again: "))
	var texts []string
	var cursor any
	for {
		s := mustCall(cs, "sync", obj{"room_id": room})
		list, _ := s["received"].([]any)
		for _, e := range list {
			if text, _ := e.(map[string]any)["text"].(string); text != "" {
				texts = append(texts, text)
			}
		}
		cursor = s["cursor"]
		if s["has_more"] != true {
			break
		}
	}
	fmt.Printf("synced\t%v\t%d\t%s\n", cursor, len(texts), strings.Join(texts, "|"))
	w := mustCall(cs, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})
	fmt.Printf("turn\t%s\n", w["status"])
	select {}
}
