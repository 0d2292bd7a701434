package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

func TestStatusPromptFollowsTheRoom(t *testing.T) {
	repo, _ := holderRepo(t)
	outside := t.TempDir()
	prompt := func(dir string, args ...string) string {
		t.Helper()
		r := runBin(t, dir, nil, append(args, "status", "--prompt")...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("status --prompt: exit %d, stderr %q", r.code, r.stderr)
		}
		return strings.TrimSuffix(r.stdout, "\n")
	}
	if got := prompt(repo); got != "" {
		t.Fatalf("before any database: %q, want nothing", got)
	}
	mustRun(t, repo, "join")
	if got := prompt(outside); got != "" {
		t.Fatalf("outside a room: %q, want nothing", got)
	}
	if got := prompt(repo); got != "idle" {
		t.Fatalf("idle room: %q", got)
	}
	mustRun(t, repo, "wait")
	if got := prompt(repo); got != "holding T1" {
		t.Fatalf("holder: %q", got)
	}
	if got := prompt(repo, "--agent", "codex:9b22ce"); !strings.HasSuffix(got, " holding") || strings.Contains(got, ":") {
		t.Fatalf("someone else: %q", got)
	}
	mustRun(t, repo, "--agent", "codex:9b22ce", "join")
	mustRun(t, repo, "--agent", "gemini:77aa01", "join")
	gemini := startBin(t, repo, "--agent", "gemini:77aa01", "wait")
	eventually(t, "gemini waits", func() bool { return prompt(repo, "--agent", "gemini:77aa01") == "waiting, 2 ahead" })
	r := mustRun(t, repo, "--agent", "gemini:77aa01", "status", "--json")
	var s standing
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || !s.Waiting || s.Ahead != 2 || s.TurnID != 1 || s.State != string(stick.StateOwned) {
		t.Fatalf("status --json: %v %+v", err, s)
	}
	gemini.signal(t, os.Interrupt)
	gemini.wait(t)
	if got := prompt(repo, "--agent", "gemini:77aa01"); !strings.HasSuffix(got, " holding") {
		t.Fatalf("after the wait ended: %q", got)
	}
	mustRun(t, repo, "release", "--status", "s", "--next-action", "n")
	if got := prompt(repo, "--agent", "codex:9b22ce"); got != "your turn" {
		t.Fatalf("reserved recipient: %q", got)
	}
	if got := prompt(repo, "--agent", "gemini:77aa01"); got != "codex next" {
		t.Fatalf("someone else while reserved: %q", got)
	}
}

func TestPromptSegments(t *testing.T) {
	members := []stick.MemberStatus{
		{AgentID: "human:ana", Status: "active"}, {AgentID: "codex:1", Status: "active"},
		{AgentID: "gemini:2", Status: "inactive"}, {AgentID: "claude-code:3", Status: "active"},
	}
	for _, tc := range []struct {
		name    string
		st      stick.RoomStatus
		me      string
		waiting bool
		want    string
	}{
		{"holding", stick.RoomStatus{State: stick.StateOwned, Owner: "human:ana", TurnID: 42}, "human:ana", false, "holding T42"},
		{"my lease expired", stick.RoomStatus{State: stick.StateStaleOwner, Owner: "human:ana", TurnID: 42}, "human:ana", false, "holding T42 ⚠ lease expired"},
		{"stale holder", stick.RoomStatus{State: stick.StateStaleOwner, Owner: "codex:1"}, "human:ana", true, "⚠ codex stale"},
		{"gone holder", stick.RoomStatus{State: stick.StateOwnerGone, Owner: "codex:1"}, "human:ana", false, "⚠ codex gone"},
		{"gone recipient", stick.RoomStatus{State: stick.StateRecipientGone, ReservedFor: "human:bo"}, "human:ana", false, "⚠ bo gone"},
		{"other holds", stick.RoomStatus{State: stick.StateOwned, Owner: "codex:1"}, "human:ana", false, "codex holding"},
		{"waiting, skipping the inactive", stick.RoomStatus{State: stick.StateOwned, Owner: "codex:1", Members: members}, "claude-code:3", true, "waiting, 1 ahead"},
		{"waiting, wrapping around", stick.RoomStatus{State: stick.StateOwned, Owner: "codex:1", Members: members}, "human:ana", true, "waiting, 2 ahead"},
		{"reserved for me", stick.RoomStatus{State: stick.StateReserved, ReservedFor: "human:ana"}, "human:ana", true, "your turn"},
		{"reserved for another", stick.RoomStatus{State: stick.StateReserved, ReservedFor: "codex:1"}, "human:ana", false, "codex next"},
		{"claim expired", stick.RoomStatus{State: stick.StateReserved, ReservedFor: "codex:1", Takeover: stick.ReasonClaimTimeout}, "human:ana", true, "⚠ codex claim expired"},
		{"my claim expired", stick.RoomStatus{State: stick.StateReserved, ReservedFor: "human:ana", Takeover: stick.ReasonClaimTimeout}, "human:ana", false, "your turn ⚠ claim expired"},
		{"idle", stick.RoomStatus{State: stick.StateIdle}, "human:ana", false, "idle"},
		{"closed", stick.RoomStatus{State: stick.StateClosed}, "human:ana", false, ""},
	} {
		if got, _ := segment(tc.st, tc.me, tc.waiting, tc.st.Ahead(tc.me)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPromptInstall(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	fakeEnv(t, map[string]string{"XDG_CONFIG_HOME": filepath.Join(home, ".config")})
	rc := filepath.Join(home, ".bashrc")
	orig := "# my bashrc\nalias ll='ls -l'\nPS1='\\u@\\h:\\w\\$ '"
	if err := os.WriteFile(rc, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "prompt", "install", "bash", "--command", stickBin, "--dry-run"); code != 0 || !strings.Contains(out, "would add") {
		t.Fatalf("dry run: %d %q %q", code, out, errOut)
	}
	if data, _ := os.ReadFile(rc); string(data) != orig {
		t.Fatal("a dry run changed the rc file")
	}
	if code, out, errOut := run(t, "prompt", "install", "bash", "--command", stickBin); code != 0 || !strings.Contains(out, "added") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	once, _ := os.ReadFile(rc)
	if !strings.HasPrefix(string(once), orig+"\n"+promptBegin) || strings.Count(string(once), promptBegin) != 1 {
		t.Fatalf("rc after install:\n%s", once)
	}
	if fi, _ := os.Stat(rc); fi.Mode().Perm() != 0o600 {
		t.Fatalf("install changed the rc file's mode to %v", fi.Mode().Perm())
	}
	if code, out, _ := run(t, "prompt", "install", "bash", "--command", stickBin); code != 0 || !strings.Contains(out, "already installed") {
		t.Fatalf("second install: %d %q", code, out)
	}
	if twice, _ := os.ReadFile(rc); string(twice) != string(once) {
		t.Fatal("installing twice changed the rc file")
	}

	// The snippet works in a real bash: the prompt shows the segment.
	if bash, err := exec.LookPath("bash"); err == nil {
		repo, _ := holderRepo(t)
		mustRun(t, repo, "wait")
		cmd := exec.Command(bash, "--norc", "-c", `source "$1"; eval "echo \"$PS1\""`, "bash", rc)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "[holding T1] ") {
			t.Fatalf("bash prompt = %q, %v; want it to start with [holding T1]", out, err)
		}
	}

	if code, out, _ := run(t, "prompt", "uninstall", "bash"); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("uninstall: %d %q", code, out)
	}
	if data, _ := os.ReadFile(rc); string(data) != orig+"\n" {
		t.Fatalf("rc after uninstall = %q, want the original (plus its final newline)", data)
	}
	spaced := filepath.Join(home, "my stick", "stick")
	if err := os.MkdirAll(filepath.Dir(spaced), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spaced, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "prompt", "install", "zsh", "--print", "--command", spaced); code != 0 ||
		!strings.Contains(out, "'"+spaced+"' status --prompt") || !strings.HasPrefix(out, promptBegin) {
		t.Fatalf("--print: %d %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".zshrc")); err == nil {
		t.Fatal("--print wrote a file")
	}
	if code, _, errOut := run(t, "prompt", "install", "tcsh"); code != 2 || !strings.Contains(errOut, "bash, zsh or fish") {
		t.Fatalf("unknown shell: %d %q", code, errOut)
	}
}

// BenchmarkStatusPrompt measures what a shell prompt pays: starting the
// binary, reading the room and printing the segment, on a warm cache.
func BenchmarkStatusPrompt(b *testing.B) {
	b.Setenv("TALKING_STICK_DATA_DIR", b.TempDir())
	repo := b.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if r := runBin(b, repo, nil, "join"); r.code != 0 {
		b.Fatal(r.stderr)
	}
	for b.Loop() {
		cmd := exec.Command(stickBin, "status", "--prompt")
		cmd.Dir = repo
		if out, err := cmd.Output(); err != nil || string(out) != "idle\n" {
			b.Fatalf("status --prompt = %q, %v", out, err)
		}
	}
}

func TestPassCompletesMembers(t *testing.T) {
	repo, _ := holderRepo(t)
	t.Chdir(repo)
	mustRun(t, repo, "join")
	mustRun(t, repo, "--agent", "codex:aa1122", "join")
	code, out, _ := run(t, "__complete", "pass", "")
	if code != 0 || !strings.HasPrefix(out, "codex:aa1122\taway\n") || strings.Contains(out, "human:") {
		t.Fatalf("completion of pass: %d %q", code, out)
	}
}

// The prompt snippets work in real shells: the segment shows, and the exit
// status the user's own prompt shows survives it. CI installs zsh and fish
// (STICK_REQUIRE_SHELLS=1); elsewhere a missing shell is skipped.
func TestPromptSnippetsInRealShells(t *testing.T) {
	repo, _ := holderRepo(t)
	mustRun(t, repo, "wait")
	for _, tc := range []struct {
		shell, rc, prompt string
		run               []string
	}{
		{"bash", ".bashrc", "PS1='[rc=$?] '\n", []string{"--norc", "-c", `source "$RC"; false; echo "${PS1@P}"`}},
		{"zsh", ".zshrc", "PROMPT='[rc=%?] '\n", []string{"-f", "-c", `source "$RC"; false; print -rP -- "$PROMPT"`}},
		{"fish", ".config/fish/config.fish", "function fish_prompt; echo -n \"[rc=$status] \"; end\n", []string{"--no-config", "-c", `source "$RC"; false; fish_prompt`}},
	} {
		t.Run(tc.shell, func(t *testing.T) {
			sh, err := exec.LookPath(tc.shell)
			if err != nil {
				if os.Getenv("STICK_REQUIRE_SHELLS") != "" {
					t.Fatalf("%s is required here: %v", tc.shell, err)
				}
				t.Skipf("%s is not installed", tc.shell)
			}
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			fakeEnv(t, map[string]string{"XDG_CONFIG_HOME": filepath.Join(home, ".config")})
			rc := filepath.Join(home, tc.rc)
			if err := os.MkdirAll(filepath.Dir(rc), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(rc, []byte(tc.prompt), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, errOut := run(t, "prompt", "install", tc.shell, "--command", stickBin); code != 0 {
				t.Fatalf("install: %d %s%s", code, out, errOut)
			}
			cmd := exec.Command(sh, tc.run...)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "RC="+rc)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasPrefix(string(out), "[holding T1] [rc=1] ") {
				t.Fatalf("%s prompt = %q, %v; want [holding T1] [rc=1] ...", tc.shell, out, err)
			}
		})
	}
}
