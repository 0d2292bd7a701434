package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// stopRun is what one run of the Stop hook gave Claude Code.
type stopRun struct {
	code           int
	stdout, stderr string
}

// runStopHook runs the hook as Claude Code does: a shell running the
// installed command, the hook's JSON on stdin, in an environment with
// Claude Code's marker and the data directory dir. This test process is
// the harness the hook finds above the shell.
func runStopHook(t *testing.T, dir, input string) stopRun {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "'"+stickBin+"' hook stop")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID", "OPENCODE_SESSION_ID",
			identity.AgentEnv, store.DataDirEnv, "STICK_DATABASE_URL":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = append(env, "CLAUDECODE=1", store.DataDirEnv+"="+dir)
	cmd.Stdin = strings.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return stopRun{code: code, stdout: out.String(), stderr: errb.String()}
}

// stopInputJSON is Claude Code's Stop input; active nil leaves
// stop_hook_active out.
func stopInputJSON(active *bool) string {
	in := map[string]any{"session_id": "3f0c2a5e-hook-test", "transcript_path": "/tmp/transcript.jsonl", "cwd": "/tmp", "hook_event_name": "Stop"}
	if active != nil {
		in["stop_hook_active"] = *active
	}
	b, _ := json.Marshal(in)
	return string(b)
}

// wantBlock checks that the hook blocked the stop with a reason holding
// every word of want.
func wantBlock(t *testing.T, what string, r stopRun, want ...string) {
	t.Helper()
	var got stopBlock
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Decision != "block" {
		t.Fatalf("%s: want a block, got %d %q %q", what, r.code, r.stdout, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(got.Reason, w) {
			t.Fatalf("%s: the reason %q does not say %q", what, got.Reason, w)
		}
	}
}

// wantPass checks that the hook let the stop go through.
func wantPass(t *testing.T, what string, r stopRun) {
	t.Helper()
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%s: want the stop to go through (exit 0, nothing on stdout), got %d %q %q", what, r.code, r.stdout, r.stderr)
	}
}

func TestStopHook(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	work := t.TempDir()
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	// This session's member, as its 'stick mcp' (Claude Code exporting no
	// session id) names it, and another agent's.
	me := stick.Caller{AgentID: identity.AgentID("claude-code", self, ""), Kind: stick.KindHarness, Process: self}
	other := stick.Caller{AgentID: "codex:0a1b2c", Kind: stick.KindHarness, Process: self}
	joined, err := svc.JoinPath(ctx, me, stick.JoinRequest{Path: work})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.JoinPath(ctx, other, stick.JoinRequest{Path: work}); err != nil {
		t.Fatal(err)
	}
	now := time.Duration(0)
	take := func(c stick.Caller) stick.Lease {
		t.Helper()
		w, err := svc.WaitForTurn(ctx, c, stick.WaitRequest{RoomID: joined.RoomID, MaxWait: &now})
		if err != nil || w.Status != stick.YourTurn {
			t.Fatalf("%s takes the stick: %+v %v", c.AgentID, w, err)
		}
		return stick.Lease{RoomID: joined.RoomID, LeaseID: w.LeaseID, TurnID: w.TurnID}
	}
	yes, no := true, false

	// Holding nothing: the stop goes through.
	wantPass(t, "holding nothing", runStopHook(t, dir, stopInputJSON(&no)))

	// Holding the stick: blocked once, naming the room and the tools.
	l := take(me)
	wantBlock(t, "holding", runStopHook(t, dir, stopInputJSON(&no)), joined.CanonicalPath, "release_stick", "pass_stick", "handoff")
	// Claude Code goes on because of the block: never blocked again.
	wantPass(t, "stop_hook_active", runStopHook(t, dir, stopInputJSON(&yes)))
	// Without the flag, the marker of the last block stops a second one,
	// and the next stop after that is blocked again.
	wantBlock(t, "holding, no flag", runStopHook(t, dir, stopInputJSON(nil)), "release_stick")
	wantPass(t, "right after a block, no flag", runStopHook(t, dir, stopInputJSON(nil)))
	wantBlock(t, "holding, no flag, later", runStopHook(t, dir, stopInputJSON(nil)), "release_stick")
	wantPass(t, "right after a block, no flag", runStopHook(t, dir, stopInputJSON(nil)))

	// Passed to and not claimed: blocked, told to claim or pass it on.
	if _, err := svc.Release(ctx, me, l, stick.Handoff{Status: "done", NextAction: "go on"}); err != nil {
		t.Fatal(err)
	}
	wantPass(t, "released", runStopHook(t, dir, stopInputJSON(&no)))
	l = take(other)
	if _, err := svc.Pass(ctx, other, l, me.AgentID, stick.Handoff{Status: "half done", NextAction: "finish it"}); err != nil {
		t.Fatal(err)
	}
	wantBlock(t, "reserved", runStopHook(t, dir, stopInputJSON(&no)), joined.CanonicalPath, "not claimed", "pass_stick")
	wantPass(t, "reserved, stop_hook_active", runStopHook(t, dir, stopInputJSON(&yes)))

	// Input that is not Claude Code's JSON: fails open.
	r := runStopHook(t, dir, "not json")
	wantPass(t, "bad input", r)
	if !strings.Contains(r.stderr, "not blocking") {
		t.Fatalf("bad input: stderr %q", r.stderr)
	}

	// An unreadable database: fails open.
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, store.DBFileName), []byte("this is not a database, not at all, not even close to one"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runStopHook(t, bad, stopInputJSON(&no))
	wantPass(t, "unreadable database", r)
	if !strings.Contains(r.stderr, "not blocking") {
		t.Fatalf("unreadable database: stderr %q", r.stderr)
	}
	// No database at all: nothing is held.
	wantPass(t, "no database", runStopHook(t, filepath.Join(bad, "missing"), stopInputJSON(&no)))
}
