package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// fakeEnv replaces the environment the commands see for one test.
func fakeEnv(t *testing.T, env map[string]string) {
	t.Helper()
	old := getenv
	getenv = func(k string) string { return env[k] }
	t.Cleanup(func() { getenv = old })
}

// setup gives a test its own database and a workspace (a git top level).
func setup(t *testing.T) string {
	t.Helper()
	t.Setenv("TALKING_STICK_DATA_DIR", t.TempDir())
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestWhoamiPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name, flag string
		env        map[string]string
		prefix     string
		why        string
	}{
		{"flag wins", "reviewer", map[string]string{identity.AgentEnv: "env-id", "CLAUDECODE": "1"}, "reviewer", "--agent"},
		{"env next", "", map[string]string{identity.AgentEnv: "env-id", "CLAUDECODE": "1"}, "env-id", identity.AgentEnv},
		{"claude code", "", map[string]string{"CLAUDECODE": "1", "USER": "ana"}, "claude-code:", "CLAUDECODE"},
		{"codex thread", "", map[string]string{"CODEX_THREAD_ID": "t-1"}, "codex:", "CODEX_THREAD_ID"},
		{"gemini", "", map[string]string{"GEMINI_CLI": "1"}, "gemini:", "GEMINI_CLI"},
		{"opencode", "", map[string]string{"OPENCODE": "1"}, "opencode:", "OPENCODE"},
		{"a person", "", map[string]string{"USER": "Ana Lopez"}, "human:ana-lopez", "person"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeEnv(t, tc.env)
			args := []string{"whoami", "--explain"}
			if tc.flag != "" {
				args = append(args, "--agent", tc.flag)
			}
			code, out, _ := run(t, args...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], tc.prefix) || !strings.Contains(lines[1], tc.why) {
				t.Fatalf("whoami: %d %q", code, out)
			}
		})
	}
	fakeEnv(t, map[string]string{"CODEX_THREAD_ID": "t-1"})
	_, a, _ := run(t, "whoami")
	fakeEnv(t, map[string]string{"CODEX_THREAD_ID": "t-2"})
	_, b, _ := run(t, "whoami")
	if a == b {
		t.Fatal("two codex threads must get two identities")
	}
}

func TestJoinListStateEvents(t *testing.T) {
	repo := setup(t)
	sub := filepath.Join(repo, "pkg")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fakeEnv(t, map[string]string{"USER": "ana"})

	// No room yet: a clear error, exit 1, and a hint that says what to do.
	code, _, errOut := run(t, "state", sub)
	if code != 1 || !strings.Contains(errOut, "room_not_found") || !strings.Contains(errOut, "hint: run 'stick join") {
		t.Fatalf("state without a room: %d %q", code, errOut)
	}
	code, out, _ := run(t, "join", sub)
	if code != 0 || !strings.Contains(out, "created and joined room") || !strings.Contains(out, "at "+repo+" as human:ana (idle, turn 0, 1 member)") {
		t.Fatalf("join: %d %q", code, out)
	}
	if code, out, _ = run(t, "join", repo, "--agent", "codex:1", "--json"); code != 0 {
		t.Fatalf("join --json: %d %q", code, out)
	}
	var j stick.JoinResult
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.AgentID != "codex:1" || len(j.Room.Members) != 2 || j.Created {
		t.Fatalf("join --json: %v %+v", err, j)
	}

	// A turn and a handoff, made through the library, show up in state and events.
	st, err := store.OpenDefault()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, _ := stick.New(st)
	codex := stick.Caller{AgentID: "codex:1", Kind: stick.KindProcess}
	zero := time.Duration(0)
	w, err := svc.WaitForTurn(context.Background(), codex, stick.WaitRequest{RoomID: j.RoomID, MaxWait: &zero})
	if err != nil || w.Status != stick.YourTurn {
		t.Fatalf("%+v %v", w, err)
	}
	if _, err := svc.Release(context.Background(), codex, w.Lease(), stick.Handoff{
		Status: "parser done", NextAction: "add tests",
		Artifacts: []stick.Artifact{{Path: "parse.go", Lines: []int{3, 9}, Role: stick.RoleEdit, Note: "error path"}},
	}); err != nil {
		t.Fatal(err)
	}

	code, out, _ = run(t, "list", repo)
	if code != 0 || !strings.HasPrefix(out, "ROOM") || !strings.Contains(out, j.RoomID) || !strings.Contains(out, "reserved") || !strings.Contains(out, "2/2") {
		t.Fatalf("list: %d %q", code, out)
	}
	code, out, _ = run(t, "state", sub)
	for _, want := range []string{"state  reserved, turn 1", "next   human:ana", "human:ana", "reserved", "pending handoff from codex:1", "parse.go:3-9", "add tests"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("state lacks %q: %d %q", want, code, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Fatal("no colours when the output is not a terminal")
	}
	code, out, _ = run(t, "state", repo, "--json")
	var rs stick.RoomStatus
	if err := json.Unmarshal([]byte(out), &rs); code != 0 || err != nil || rs.ReservedFor != "human:ana" || rs.PendingHandoff == nil {
		t.Fatalf("state --json: %d %v %+v", code, err, rs)
	}
	code, out, _ = run(t, "events", repo)
	if code != 0 || !strings.Contains(out, "release  codex:1 -> human:ana") || !strings.Contains(out, "status: parser done") {
		t.Fatalf("events: %d %q", code, out)
	}
	code, out, _ = run(t, "events", repo, "--after", "2", "--limit", "1", "--json")
	var page stick.EventPage
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Events) != 1 || page.Events[0].Seq != 3 || !page.HasMore {
		t.Fatalf("events --json page: %d %v %+v", code, err, page)
	}
	if code, _, errOut := run(t, "events", repo, "--after", "0", "--limit", "-3"); code != 2 || !strings.Contains(errOut, "invalid_argument") {
		t.Fatalf("bad limit: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "state", "/no/such/dir"); code != 2 || !strings.Contains(errOut, "does not exist") {
		t.Fatalf("bad path: %d %q", code, errOut)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// events --follow streams events as they commit and ends cleanly on interrupt.
func TestEventsFollow(t *testing.T) {
	repo := setup(t)
	fakeEnv(t, map[string]string{"USER": "ana"})
	if code, out, _ := run(t, "join", repo); code != 0 {
		t.Fatal(out)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	out := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Execute(ctx, LocalWiring(), []string{"events", repo, "--follow", "--json"}, strings.NewReader(""), out, &bytes.Buffer{}, "test")
	}()
	waitFor(t, func() bool { return strings.Count(out.String(), "\n") >= 1 }) // the join
	if code, o, _ := run(t, "join", repo, "--agent", "codex:1"); code != 0 {
		t.Fatal(o)
	}
	waitFor(t, func() bool { return strings.Count(out.String(), "\n") >= 2 })
	cancel(Interrupted{Signal: os.Interrupt})
	select {
	case code := <-done:
		if code != 130 {
			t.Fatalf("--follow interrupted by Ctrl-C must exit 130, got %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--follow did not stop when interrupted")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var second stick.Event
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &second) != nil || second.From != "codex:1" || second.Type != stick.EventJoin {
		t.Fatalf("stream: %q", out.String())
	}
}

// waitFor polls cond as a safety net against hangs, never as an assertion of timing.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The reclaim token a join returns is a secret for restarted harnesses:
// 'stick join' keeps it out of its text and gives it only with --json.
func TestJoinKeepsReclaimTokenOutOfText(t *testing.T) {
	s := newScene(t)
	var j stick.JoinResult
	s.decodeJSON(&j, "join", s.repo)
	if !strings.HasPrefix(j.ReclaimToken, "rt_") {
		t.Errorf("the join --json that adds the member lacks its reclaim token: %+v", j)
	}
	out := s.ok("join", s.repo)
	if strings.Contains(out, "rt_") || strings.Contains(out, "reclaim") {
		t.Errorf("join printed its reclaim token: %q", out)
	}
	var again stick.JoinResult
	s.decodeJSON(&again, "join", s.repo)
	if again.ReclaimToken != "" {
		t.Errorf("a later join from a command, which is not the member's process, must not get the token: %+v", again)
	}
}
