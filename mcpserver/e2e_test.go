package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
)

// stickBin is the stick binary built once for the end-to-end tests.
var stickBin string

func TestMain(m *testing.M) {
	cleanup := func() {}
	testproc.Register("harness", harness)
	testproc.Register("waiting-harness", waitingHarness)
	testproc.Register("relay", relay)
	testproc.Register("member", memberHarness)
	if os.Getenv("STICK_BIN") == "" && os.Getenv("STICK_TESTPROC_HELPER") == "" {
		dir, err := os.MkdirTemp("", "stick-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		stickBin = filepath.Join(dir, "stick")
		if out, err := exec.Command("go", "build", "-o", stickBin, "github.com/stickhq/stick/cmd/stick").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building stick: %v\n%s", err, out)
			os.Exit(1)
		}
		os.Setenv("STICK_BIN", stickBin)
		cleanup = func() { os.RemoveAll(dir) }
	}
	stickBin = os.Getenv("STICK_BIN")
	testproc.Main(m, cleanup)
}

// spawn starts a real 'stick mcp' process on the shared data directory and
// connects to it as clientName.
func spawn(t testing.TB, data, clientName string) *mcp.ClientSession {
	t.Helper()
	cs, err := dial(context.Background(), data, clientName)
	if err != nil {
		t.Fatalf("start stick mcp for %s: %v", clientName, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func dial(ctx context.Context, data, clientName string) (*mcp.ClientSession, error) {
	cmd := exec.Command(stickBin, "mcp")
	cmd.Env = append(os.Environ(), "TALKING_STICK_DATA_DIR="+data)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, nil)
	return client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
}

// harness: args data repo clientName. A stand-in for a coding-agent harness:
// it starts its own 'stick mcp', claims the stick, prints "holding", and
// blocks until it is killed.
func harness(args []string) int {
	cs, err := dial(context.Background(), args[0], args[2])
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	j := mustCall(cs, "join_path", obj{"context_path": args[1]})
	w := mustCall(cs, "wait_for_turn", obj{"room_id": j["room_id"]})
	if w["status"] != "your_turn" {
		fmt.Println("error", w)
		return 1
	}
	fmt.Println("holding", w["agent_id"])
	select {}
}

func mustCall(cs *mcp.ClientSession, tool string, args any) map[string]any {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil || res.IsError {
		fmt.Println("error", tool, err, res)
		os.Exit(1)
	}
	return res.StructuredContent.(map[string]any)
}

type agents struct{ codex, claude, gemini *mcp.ClientSession }

func threeAgents(t *testing.T) (agents, string, string) {
	data, repo := t.TempDir(), mkRepo(t)
	return agents{
		codex:  spawn(t, data, "codex-mcp-client"),
		claude: spawn(t, data, "claude-code"),
		gemini: spawn(t, data, "gemini-cli-mcp-client"),
	}, data, repo
}

func joinAll(t *testing.T, repo string, sessions ...*mcp.ClientSession) (string, []string) {
	var room string
	var ids []string
	for _, cs := range sessions {
		j := ok(t, cs, "join_path", obj{"context_path": repo})
		room = j.str("room_id")
		ids = append(ids, j.str("agent_id"))
	}
	return room, ids
}

// The plan's three-agent round robin, each agent in its own 'stick mcp'.
func TestE2ERoundRobin(t *testing.T) {
	a, _, repo := threeAgents(t)
	room, ids := joinAll(t, repo, a.codex, a.claude, a.gemini)
	for _, want := range []string{"codex:", "claude-code:", "gemini:"} {
		if !slicesHasPrefix(ids, want) {
			t.Fatalf("agent ids %v lack %s", ids, want)
		}
	}
	order := []*mcp.ClientSession{a.codex, a.claude, a.gemini, a.codex}
	w := ok(t, a.codex, "wait_for_turn", obj{"room_id": room})
	for i := 1; i < len(order); i++ {
		status := fmt.Sprintf("turn %d done", w.num("turn_id"))
		rel := ok(t, order[i-1], "release_stick", with(lease(w), "handoff", obj{
			"status": status, "next_action": "take turn " + fmt.Sprint(i+1),
			"artifacts": []any{obj{"path": "plan.md", "lines": []int{i, i + 10}, "role": "edit"}},
		}))
		if rel.str("reserved_for") != ids[i%3] {
			t.Fatalf("step %d reserved for %s, want %s", i, rel.str("reserved_for"), ids[i%3])
		}
		w = ok(t, order[i], "wait_for_turn", obj{"room_id": room})
		if w.str("status") != "your_turn" || w.num("turn_id") != int64(i+1) || !strings.Contains(w.text, status) ||
			!strings.Contains(w.text, fmt.Sprintf("plan.md:%d-%d", i, i+10)) {
			t.Fatalf("step %d: %s", i, w.text)
		}
	}
}

// codex passes straight to gemini, skipping claude; the sequence resumes after gemini.
func TestE2EExplicitSkip(t *testing.T) {
	a, _, repo := threeAgents(t)
	room, ids := joinAll(t, repo, a.codex, a.claude, a.gemini)
	w := ok(t, a.codex, "wait_for_turn", obj{"room_id": room})
	ok(t, a.codex, "pass_stick", with(lease(w), "to_agent_id", ids[2], "handoff", obj{
		"status": "found potential race in claim logic", "next_action": "assess lease fencing",
		"artifacts": []any{obj{"path": "src/claim.ts", "lines": []int{102, 140}, "role": "review"}},
	}))
	if r := ok(t, a.claude, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}); r.str("status") != "not_yet" {
		t.Fatalf("claude was skipped: %s", r.text)
	}
	g := ok(t, a.gemini, "wait_for_turn", obj{"room_id": room})
	if g.str("reason") != "direct_pass" || !strings.Contains(g.text, "src/claim.ts:102-140") {
		t.Fatalf("gemini: %s", g.text)
	}
	if rel := ok(t, a.gemini, "release_stick", with(lease(g), "handoff", handoff("assessed"))); rel.str("reserved_for") != ids[0] {
		t.Fatalf("the sequence must resume after gemini: %v", rel.data)
	}
}

// The plan's missed recipient: claude does not claim in time; the prior
// owner may not take over while gemini is active; gemini does; claude is late.
func TestE2EMissedRecipientTakeover(t *testing.T) {
	a, _, repo := threeAgents(t)
	room, ids := joinAll(t, repo, a.codex, a.claude, a.gemini)
	ok(t, a.codex, "set_room_policy", obj{"room_id": room, "claim_ttl_ms": 200})
	w := ok(t, a.codex, "wait_for_turn", obj{"room_id": room})
	ok(t, a.codex, "release_stick", with(lease(w), "handoff", handoff("plan written")))
	// gemini blocks until the claim times out: a wake-up at the deadline, not a sleep.
	g := ok(t, a.gemini, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 10000})
	if g.str("status") != "takeover_available" || g.str("reason") != "claim_timeout" || g.str("reserved_for") != ids[1] {
		t.Fatalf("gemini: %s", g.text)
	}
	fails(t, a.codex, "takeover_stick", obj{"room_id": room, "expected_turn_id": 1, "reason": "claim timeout"}, "takeover_ineligible")
	tk := ok(t, a.gemini, "takeover_stick", obj{"room_id": room, "expected_turn_id": 1, "reason": "claim timeout expired"})
	if tk.num("turn_id") != 2 || tk.str("revoked_agent_id") != ids[1] || !strings.Contains(tk.text, "plan written") {
		t.Fatalf("takeover: %s", tk.text)
	}
	ev := ok(t, a.gemini, "get_room_events", obj{"room_id": room})
	if !strings.Contains(ev.text, "plan written") || !strings.Contains(ev.text, "takeover by "+ids[2]) {
		t.Fatalf("events: %s", ev.text)
	}
	if late := ok(t, a.claude, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}); late.str("status") != "not_yet" || late.str("current_owner") != ids[2] {
		t.Fatalf("late claude: %s", late.text)
	}
}

// A harness holding the stick is SIGKILLed: its 'stick mcp' goes with it,
// and a waiting agent sees owner_gone at once, without any lease timeout.
func TestE2ECrashedOwner(t *testing.T) {
	data, repo := t.TempDir(), mkRepo(t)
	h := testproc.Start(t, "harness", data, repo, "claude-code")
	line, err := h.ReadLine(30 * time.Second)
	if err != nil || !strings.HasPrefix(line, "holding") {
		t.Fatalf("harness: %q %v %s", line, err, h.Stderr())
	}
	codex := spawn(t, data, "codex-mcp-client")
	room, _ := joinAll(t, repo, codex)
	done := make(chan result, 1)
	go func() {
		r, err := callErr(codex, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 20000})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	time.Sleep(100 * time.Millisecond) // let the wait block; correctness does not depend on it
	killed := time.Now()
	if err := h.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.str("status") != "takeover_available" || r.str("reason") != "owner_gone" {
			t.Fatalf("after the harness died: %s", r.text)
		}
		t.Logf("owner_gone seen %v after SIGKILL of the harness", time.Since(killed))
	case <-time.After(15 * time.Second):
		t.Fatal("the waiter never saw the owner die")
	}
	st := ok(t, codex, "get_room_state", obj{"room_id": room})
	if st.str("state") != "owner_gone" {
		t.Fatalf("state: %s", st.text)
	}
	if tk := ok(t, codex, "takeover_stick", obj{"room_id": room, "expected_turn_id": 1, "reason": "holder's harness crashed"}); tk.num("turn_id") != 2 {
		t.Fatalf("takeover: %s", tk.text)
	}
}

// Two processes claim an idle room at the same moment: exactly one wins, the
// other sees the winner as holder.
func TestE2EConcurrentClaim(t *testing.T) {
	data := t.TempDir()
	a, b := spawn(t, data, "claude-code"), spawn(t, data, "codex-mcp-client")
	for round := 0; round < 5; round++ {
		repo := mkRepo(t)
		room, ids := joinAll(t, repo, a, b)
		var wg sync.WaitGroup
		results := make([]result, 2)
		for i, cs := range []*mcp.ClientSession{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				if results[i], err = callErr(cs, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		wins := 0
		for i, r := range results {
			switch r.str("status") {
			case "your_turn":
				wins++
			case "not_yet":
				if r.str("current_owner") != ids[1-i] {
					t.Fatalf("round %d: the loser must see the winner as holder: %s", round, r.text)
				}
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d winners", round, wins)
		}
	}
}

func slicesHasPrefix(ids []string, prefix string) bool {
	for _, id := range ids {
		if strings.HasPrefix(id, prefix) {
			return true
		}
	}
	return false
}

// A harness that dies while its wait is in progress takes its 'stick mcp'
// with it: the server sees stdin close, ends the wait and exits by itself.
func TestE2EDisconnectEndsServer(t *testing.T) {
	data, repo := t.TempDir(), mkRepo(t)
	holder := spawn(t, data, "codex-mcp-client")
	room, _ := joinAll(t, repo, holder)
	ok(t, holder, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 0})

	h := testproc.Start(t, "waiting-harness", data, repo, "claude-code")
	line, err := h.ReadLine(30 * time.Second)
	if err != nil || !strings.HasPrefix(line, "waiting ") {
		t.Fatalf("harness: %q %v %s", line, err, h.Stderr())
	}
	server, err := procid.Of(atoi(strings.TrimPrefix(line, "waiting ")))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Kill(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for procid.Check(server) != procid.Gone {
		if time.Since(start) > 10*time.Second {
			t.Fatal("stick mcp kept running after its harness died")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("stick mcp exited %v after its harness died", time.Since(start))
}

// waiting-harness: args data repo clientName. Starts 'stick mcp', joins,
// prints "waiting <server pid>", and blocks in wait_for_turn until killed.
func waitingHarness(args []string) int {
	cmd := exec.Command(stickBin, "mcp")
	cmd.Env = append(os.Environ(), "TALKING_STICK_DATA_DIR="+args[0])
	cs, err := mcp.NewClient(&mcp.Implementation{Name: args[2], Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	j := mustCall(cs, "join_path", obj{"context_path": args[1]})
	go mustCall(cs, "wait_for_turn", obj{"room_id": j["room_id"], "max_wait_ms": 600000})
	time.Sleep(100 * time.Millisecond) // let the wait reach the server
	fmt.Println("waiting", cmd.Process.Pid)
	select {}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
