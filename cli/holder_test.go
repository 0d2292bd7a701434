package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// safety bounds waits that would otherwise hang a broken test; it is never
// what a test asserts.
const safety = 15 * time.Second

// plainEnv clears what would change a binary's identity: the tests act as a
// person unless they say otherwise, whatever harness runs them.
var plainEnv = []string{"CLAUDECODE=", "CODEX_THREAD_ID=", "GEMINI_CLI=", "OPENCODE=", identity.AgentEnv + "=",
	"CLAUDE_CODE_SESSION_ID=", "GEMINI_SESSION_ID=", "OPENCODE_SESSION_ID=", "NO_COLOR=1"}

func init() {
	testproc.Register("shell", shellHelper)
}

// shellHelper stands for a person's terminal shell (a session leader) or a
// harness: it runs the command in its arguments, prints "exit N" when that
// ends, and stays alive until it is killed, as the anchor of whatever
// holder the command left.
func shellHelper(args []string) int {
	leadSession()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	fmt.Printf("exit %d\n", code)
	select {}
}

// holderRepo gives a test a database and a workspace, and kills any holder
// left in that database when the test ends.
func holderRepo(t *testing.T) (repo, data string) {
	t.Helper()
	repo = setup(t)
	data = os.Getenv("TALKING_STICK_DATA_DIR")
	for _, kv := range plainEnv {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	old := guardianExe
	guardianExe = func() (string, error) { return stickBin, nil }
	t.Cleanup(func() {
		guardianExe = old
		hs, _ := holder.Read(filepath.Join(data, "cli"))
		for _, h := range hs {
			_ = procid.Signal(h.Guardian, syscall.SIGKILL)
		}
	})
	return repo, data
}

func holders(t *testing.T, data string) []holder.Record {
	t.Helper()
	hs, err := holder.Read(filepath.Join(data, "cli"))
	if err != nil {
		t.Fatal(err)
	}
	var live []holder.Record
	for _, h := range hs {
		if procid.Check(h.Guardian) == procid.Alive {
			live = append(live, h)
		}
	}
	return live
}

func roomState(t *testing.T, repo string) stick.RoomStatus {
	t.Helper()
	r := runBin(t, repo, nil, "state", "--json")
	if r.code != 0 {
		t.Fatalf("state: %d %s", r.code, r.stderr)
	}
	var st stick.RoomStatus
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("state --json: %v\n%s", err, r.stdout)
	}
	return st
}

// waitingHolder waits until agent's holder waits for the stick, and
// returns it.
func waitingHolder(t *testing.T, data, agent string) holder.Record {
	t.Helper()
	var found holder.Record
	eventually(t, agent+"'s holder waits", func() bool {
		for _, h := range holders(t, data) {
			if h.AgentID == agent && h.State == holder.Waiting {
				found = h
				return true
			}
		}
		return false
	})
	return found
}

// eventually polls cond until it holds; the deadline only bounds a broken test.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(safety)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, safety)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func mustRun(t *testing.T, repo string, args ...string) binResult {
	t.Helper()
	r := runBin(t, repo, nil, args...)
	if r.code != 0 {
		t.Fatalf("stick %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func TestWaitLeavesAHeartbeatingHolderThatReleaseStops(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "join")
	mustRun(t, repo, "policy", "--heartbeat", "100ms", "--lease", "3s")

	r := mustRun(t, repo, "wait")
	for _, want := range []string{"your turn", "turn 1", "no handoff: this is the room's first turn", "stick release --status"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("wait output lacks %q:\n%s", want, r.stdout)
		}
	}
	hs := holders(t, data)
	if len(hs) != 1 || hs[0].State != holder.Holding || hs[0].Lease.TurnID != 1 || hs[0].Lease.LeaseID == "" {
		t.Fatalf("holder records = %+v, want one holding turn 1", hs)
	}
	guardian := hs[0].Guardian
	st := roomState(t, repo)
	if st.State != stick.StateOwned || st.Owner != hs[0].AgentID || st.LeaseExpires == nil {
		t.Fatalf("room = %s owned by %q, want owned by %s", st.State, st.Owner, hs[0].AgentID)
	}
	first := *st.LeaseExpires
	eventually(t, "the holder heartbeats", func() bool {
		st := roomState(t, repo)
		return st.LeaseExpires != nil && st.LeaseExpires.After(first)
	})

	r = mustRun(t, filepath.Join(repo), "release", "--status", "parser fixed", "--next-action", "review it",
		"--artifact", "cli/handoff.go:10-20=review", "--question", "keep the old flag?", "--do-not", "touch the schema")
	if !strings.Contains(r.stdout, "released turn 1") {
		t.Fatalf("release output: %s", r.stdout)
	}
	if st := procid.Check(guardian); st != procid.Gone {
		t.Fatalf("the holder still runs after release: %v", st)
	}
	if hs, err := holder.Read(filepath.Join(data, "cli")); err != nil || len(hs) != 0 {
		t.Fatalf("records left after release: %+v %v", hs, err)
	}
	st = roomState(t, repo)
	if st.State != stick.StateIdle || st.PendingHandoff == nil {
		t.Fatalf("after release: %s, pending %v", st.State, st.PendingHandoff)
	}
	h := st.PendingHandoff.Handoff
	if h.Status != "parser fixed" || h.NextAction != "review it" || len(h.Artifacts) != 1 ||
		h.Artifacts[0].Path != "cli/handoff.go" || fmt.Sprint(h.Artifacts[0].Lines) != "[10 20]" || h.Artifacts[0].Role != stick.RoleReview ||
		fmt.Sprint(h.OpenQuestions) != "[keep the old flag?]" || fmt.Sprint(h.DoNot) != "[touch the schema]" {
		t.Fatalf("handoff = %+v", h)
	}

	// The next wait receives that handoff in full.
	r = mustRun(t, repo, "--agent", "bob", "wait")
	for _, want := range []string{"handoff from human:", "parser fixed", "review it", "cli/handoff.go:10-20", "keep the old flag?", "touch the schema"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("second wait lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestHolderDiesWithItsShellAndOthersTakeOver(t *testing.T) {
	repo, data := holderRepo(t)
	// Run through a script's shell: the holder belongs to the terminal's
	// shell (the session leader), not to the script.
	shell := testproc.StartEnv(t, []string{"TALKING_STICK_DATA_DIR=" + data}, "shell", "sh", "-c", fmt.Sprintf("%q wait %q", stickBin, repo))
	if line := readUntil(t, shell, "exit "); line != "exit 0" {
		t.Fatalf("wait in the shell: %s\n%s", line, shell.Stderr())
	}
	hs := holders(t, data)
	if len(hs) != 1 || hs[0].Anchor.PID != shell.PID() {
		t.Fatalf("records = %+v, want one anchored to the shell (pid %d)", hs, shell.PID())
	}
	guardian := hs[0].Guardian
	if err := shell.Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the holder ends with its shell", func() bool { return procid.Check(guardian) == procid.Gone })
	if st := roomState(t, repo); st.State != stick.StateOwnerGone || st.Takeover != stick.ReasonOwnerGone {
		t.Fatalf("room after the holder died: %s (takeover %q), want owner_gone", st.State, st.Takeover)
	}

	r := runBin(t, repo, nil, "--agent", "bob", "wait")
	if r.code != exitTakeover || !strings.Contains(r.stdout, "takeover available") || !strings.Contains(r.stdout, "stick takeover") {
		t.Fatalf("wait after the holder died: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, repo, nil, "--agent", "bob", "takeover"); r.code != 2 || !strings.Contains(r.stderr, "invalid_argument: takeover needs --reason") {
		t.Fatalf("takeover without a reason: %d %s", r.code, r.stderr)
	}
	r = mustRun(t, repo, "--agent", "bob", "takeover", "--reason", "the shell was killed")
	if !strings.Contains(r.stdout, "you took over") || !strings.Contains(r.stdout, "owner_gone") {
		t.Fatalf("takeover output:\n%s", r.stdout)
	}
	if st := roomState(t, repo); st.Owner != "bob" || st.TurnID != 2 || st.State != stick.StateOwned {
		t.Fatalf("after takeover: %s owner %q turn %d", st.State, st.Owner, st.TurnID)
	}
	if hs := holders(t, data); len(hs) != 1 || hs[0].AgentID != "bob" {
		t.Fatalf("records after takeover: %+v", hs)
	}
	if r := mustRun(t, repo, "events"); !strings.Contains(r.stdout, "takeover bob -> human:") || !strings.Contains(r.stdout, "(owner_gone: the shell was killed)") {
		t.Fatalf("the log does not show the takeover and why:\n%s", r.stdout)
	}
	// The dead holder's identity cannot release any more.
	if r := runBin(t, repo, nil, "release", "--status", "x", "--next-action", "y"); r.code != 1 || !strings.Contains(r.stderr, "stale_lease") {
		t.Fatalf("release by the dead holder's identity: %d %s", r.code, r.stderr)
	}
}

func TestHarnessRunHolderBelongsToTheHarness(t *testing.T) {
	repo, data := holderRepo(t)
	script := fmt.Sprintf("%q wait %q && %q whoami", stickBin, repo, stickBin)
	// Claude Code started from a Codex shell: both markers are set; the CLI
	// hashes the same session id its 'stick mcp' would.
	harness := testproc.StartEnv(t, []string{"TALKING_STICK_DATA_DIR=" + data, "CLAUDECODE=1", "CODEX_THREAD_ID=thread-7"}, "shell", "sh", "-c", script)
	var out []string
	for {
		line, err := harness.ReadLine(safety)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "exit ") {
			if line != "exit 0" {
				t.Fatalf("harness command: %s\n%s", line, strings.Join(out, "\n"))
			}
			break
		}
		out = append(out, line)
	}
	id, err := procid.Of(harness.PID())
	if err != nil {
		t.Fatal(err)
	}
	want := identity.AgentID("claude-code", id, identity.SessionID(func(k string) string {
		return map[string]string{"CODEX_THREAD_ID": "thread-7"}[k]
	}))
	if got := out[len(out)-1]; got != want {
		t.Fatalf("whoami under the harness = %q, want %q (the id its 'stick mcp' gets)", got, want)
	}
	hs := holders(t, data)
	if len(hs) != 1 || hs[0].AgentID != want || hs[0].Anchor.PID != harness.PID() {
		t.Fatalf("records = %+v, want one for %s anchored to the harness (pid %d), not its shell", hs, want, harness.PID())
	}
	guardian := hs[0].Guardian
	if err := harness.Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the holder ends with its harness", func() bool { return procid.Check(guardian) == procid.Gone })
	if st := roomState(t, repo); st.State != stick.StateOwnerGone {
		t.Fatalf("room after the harness died: %s, want owner_gone", st.State)
	}
}

func TestWaitTimeoutTryAndInterrupt(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "wait")
	if r := runBin(t, repo, nil, "--agent", "bob", "try"); r.code != exitNotYet || !strings.Contains(r.stdout, "not your turn yet") {
		t.Fatalf("try while held: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, repo, nil, "--agent", "bob", "wait", "--timeout", "150ms"); r.code != exitNotYet {
		t.Fatalf("wait --timeout while held: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, repo, nil, "--agent", "bob", "wait", "--timeout", "-1s"); r.code != 2 || !strings.Contains(r.stderr, "--timeout") {
		t.Fatalf("negative timeout: %d %s", r.code, r.stderr)
	}
	if hs := holders(t, data); len(hs) != 1 || hs[0].AgentID == "bob" {
		t.Fatalf("records after bob's failed attempts: %+v", hs)
	}
	// A second wait by the holder is not a second holder.
	if r := mustRun(t, repo, "wait"); !strings.Contains(r.stdout, "already hold") {
		t.Fatalf("second wait by the holder:\n%s", r.stdout)
	}

	bob := startBin(t, repo, "--agent", "bob", "wait")
	waiting := waitingHolder(t, data, "bob").Guardian
	bob.signal(t, os.Interrupt)
	if code := bob.wait(t); code != 130 || bob.stderr.String() != "stick: interrupted\n" {
		t.Fatalf("interrupted wait: exit %d, stderr %q", code, bob.stderr.String())
	}
	eventually(t, "the waiting holder ends with the interrupted wait", func() bool { return procid.Check(waiting) == procid.Gone })
	if hs := holders(t, data); len(hs) != 1 || hs[0].AgentID == "bob" {
		t.Fatalf("records after the interrupt: %+v", hs)
	}
}

func TestHoldReleasesOnCtrlC(t *testing.T) {
	repo, _ := holderRepo(t)
	hold := startBin(t, repo, "hold", "--status", "held it", "--next-action", "carry on")
	hold.readUntil(t, "your turn")
	if st := roomState(t, repo); st.State != stick.StateOwned {
		t.Fatalf("room while held: %s", st.State)
	}
	hold.signal(t, os.Interrupt)
	if code := hold.wait(t); code != 0 {
		t.Fatalf("hold after Ctrl-C: exit %d\n%s", code, hold.stderr.String())
	}
	st := roomState(t, repo)
	if st.State != stick.StateIdle || st.PendingHandoff == nil || st.PendingHandoff.Handoff.Status != "held it" {
		t.Fatalf("after hold: %s %+v", st.State, st.PendingHandoff)
	}
}

func TestHoldAsksForTheHandoff(t *testing.T) {
	repo, _ := holderRepo(t)
	hold := startBin(t, repo, "hold")
	hold.readUntil(t, "your turn")
	hold.signal(t, os.Interrupt)
	fmt.Fprint(hold.stdin, "fixed the flags\nreview them\nREADME.md:3-4=edit\nnot a role=frob\n\nREADME.md\n\nwhy two names?\n\n")
	if code := hold.wait(t); code != 0 {
		t.Fatalf("hold: exit %d\n%s", code, hold.stderr.String())
	}
	out := hold.stdout.String()
	for _, want := range []string{"what did you do", "what should the next holder do", "files to look at", "unknown role", "open questions", "released turn 1"} {
		if !strings.Contains(out, want) {
			t.Fatalf("hold output lacks %q:\n%s", want, out)
		}
	}
	h := roomState(t, repo).PendingHandoff.Handoff
	if h.Status != "fixed the flags" || h.NextAction != "review them" || len(h.Artifacts) != 1 || h.Artifacts[0].Path != "README.md" ||
		h.Artifacts[0].Role != stick.RoleExamine || fmt.Sprint(h.OpenQuestions) != "[why two names?]" {
		t.Fatalf("handoff = %+v", h)
	}
}

func TestHoldEndsWhenReleasedElsewhere(t *testing.T) {
	repo, data := holderRepo(t)
	hold := startBin(t, repo, "hold")
	hold.readUntil(t, "your turn")
	if hs := holders(t, data); len(hs) != 1 || hs[0].Guardian.PID != hold.cmd.Process.Pid {
		t.Fatalf("records = %+v, want the hold process itself", hs)
	}
	mustRun(t, repo, "release", "--status", "done from elsewhere", "--next-action", "none")
	if code := hold.wait(t); code != 0 || !strings.Contains(hold.stdout.String(), "handed on from another process") {
		t.Fatalf("hold after a release elsewhere: exit %d\n%s%s", code, hold.stdout.String(), hold.stderr.String())
	}
}

func TestReleaseErrors(t *testing.T) {
	repo, _ := holderRepo(t)
	mustRun(t, repo, "join")
	// The flags are checked before the lease: a bad flag is no stale_lease.
	r := runBin(t, repo, nil, "release", "--status", "x")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "stick: invalid_handoff: a handoff needs --status and --next-action") {
		t.Fatalf("release with a bad flag and without the stick: %d %q", r.code, r.stderr)
	}
	r = runBin(t, repo, nil, "release", "--status", "x", "--next-action", "y")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "stick: stale_lease: human:") || !strings.Contains(r.stderr, "hint: run 'stick wait'") {
		t.Fatalf("release without the stick: %d %q", r.code, r.stderr)
	}
	mustRun(t, repo, "wait")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"release", "--next-action", "y"}, 2, "stick: invalid_handoff: a handoff needs --status and --next-action"},
		{[]string{"release", "--status", "x", "--next-action", "y", "--artifact", "a.go:9-3"}, 2, "stick: invalid_argument: --artifact \"a.go:9-3\": lines must be START-END"},
		{[]string{"release", "--status", "x", "--next-action", "y", "--artifact", "a.go=frob"}, 2, "unknown role \"frob\""},
		{[]string{"release", "--status", "x", "--next-action", "y", "--handoff", "missing.json"}, 2, "cannot read handoff from missing.json"},
		{[]string{"pass", "nobody", "--status", "x", "--next-action", "y"}, 1, "stick: unknown_member"},
		{[]string{"release", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"pass"}, 2, "'stick pass' needs AGENT"},
	} {
		r := runBin(t, repo, nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "hint:") {
			t.Errorf("stick %s: exit %d %q, want %d with %q and a hint", strings.Join(tc.args, " "), r.code, r.stderr, tc.code, tc.want)
		}
	}
	// None of them ended the turn.
	if st := roomState(t, repo); st.State != stick.StateOwned || st.TurnID != 1 {
		t.Fatalf("after rejected releases: %s turn %d", st.State, st.TurnID)
	}
	r = mustRun(t, repo, "heartbeat", "--json")
	var hb stick.HeartbeatResult
	if err := json.Unmarshal([]byte(r.stdout), &hb); err != nil || hb.TurnID != 1 || !hb.LeaseExpiresAt.After(time.Now()) {
		t.Fatalf("heartbeat --json: %v %+v", err, hb)
	}
}

func TestParseArtifact(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	for _, tc := range []struct {
		in, path, role string
		lines          []int
		bad            bool
	}{
		{in: "a.go", path: "a.go", role: "examine"},
		{in: "a.go:12", path: "a.go", role: "examine", lines: []int{12, 12}},
		{in: "a.go:3-9=edit", path: "a.go", role: "edit", lines: []int{3, 9}},
		{in: "dir/b.md=context", path: "dir/b.md", role: "context"},
		{in: "/abs/c.go:1-1=output", path: "/abs/c.go", role: "output", lines: []int{1, 1}},
		{in: "C:x.go", path: "C:x.go", role: "examine"},
		{in: "a.go:0-3", bad: true},
		{in: "a.go:4-3", bad: true},
		{in: "a.go=nope", bad: true},
		{in: "=edit", bad: true},
	} {
		a, err := parseArtifact(tc.in, root)
		if tc.bad {
			if stick.ErrorCode(err) != stick.CodeInvalidArgument {
				t.Errorf("%q: err = %v, want invalid_argument", tc.in, err)
			}
			continue
		}
		if err != nil || a.Path != tc.path || string(a.Role) != tc.role || fmt.Sprint(a.Lines) != fmt.Sprint(tc.lines) {
			t.Errorf("%q = %+v, %v; want %s %v %s", tc.in, a, err, tc.path, tc.lines, tc.role)
		}
	}
}

// binProc is a running stick binary with its output captured.
type binProc struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *syncBuffer
	lines          chan string
}

func startBin(t *testing.T, dir string, args ...string) *binProc {
	t.Helper()
	cmd := exec.Command(stickBin, args...)
	cmd.Dir = dir
	p := &binProc{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, lines: make(chan string, 100)}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.stdout.Write([]byte(sc.Text() + "\n"))
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return p
}

func (p *binProc) readUntil(t *testing.T, substr string) string {
	t.Helper()
	timer := time.NewTimer(safety)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("output ended before %q:\n%s%s", substr, p.stdout.String(), p.stderr.String())
			}
			if strings.Contains(line, substr) {
				return line
			}
		case <-timer.C:
			t.Fatalf("no %q within %v:\n%s%s", substr, safety, p.stdout.String(), p.stderr.String())
		}
	}
}

func (p *binProc) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

func (p *binProc) wait(t *testing.T) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		for range p.lines {
		}
		_ = p.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(safety):
		t.Fatalf("still running after %v:\n%s%s", safety, p.stdout.String(), p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// readUntil reads a helper's lines until one starts with prefix.
func readUntil(t *testing.T, p *testproc.Proc, prefix string) string {
	t.Helper()
	for {
		line, err := p.ReadLine(safety)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
}

func TestTurnCommandsInProcess(t *testing.T) {
	repo, data := holderRepo(t)
	t.Chdir(repo)
	code, out, errOut := run(t, "wait", "--json")
	var rep holder.Report
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || !rep.Granted() || rep.Wait.TurnID != 1 || rep.Join == nil {
		t.Fatalf("wait --json: %d %v %s%s", code, err, out, errOut)
	}
	if procid.Check(rep.Guardian) != procid.Alive {
		t.Fatalf("the holder (%v) does not run", rep.Guardian)
	}
	if code, out, _ := run(t, "status"); code != 0 || !strings.HasSuffix(out, ": holding T1\n") {
		t.Fatalf("status: %d %q", code, out)
	}
	if code, out, _ := run(t, "heartbeat"); code != 0 || !strings.Contains(out, "lease of turn 1 extended until") {
		t.Fatalf("heartbeat: %d %q", code, out)
	}
	code, out, _ = run(t, "--agent", "bob", "try", "--json")
	var bob holder.Report
	if err := json.Unmarshal([]byte(out), &bob); code != exitNotYet || err != nil || bob.Wait == nil || bob.Wait.Status != stick.NotYet || bob.Wait.CurrentOwner != rep.Join.AgentID {
		t.Fatalf("try by another: %d %v %s", code, err, out)
	}
	// A person whose try ended is away: not waiting now, but still in the rotation.
	if code, out, _ := run(t, "state", "--json"); code != 0 || !strings.Contains(out, `"agent_id": "bob"`) || !strings.Contains(out, `"status": "away"`) {
		t.Fatalf("state after bob's try: %d %s", code, out)
	}
	waiter := startBin(t, repo, "--agent", "bob", "wait")
	waitingHolder(t, data, "bob")
	code, out, _ = run(t, "pass", "bob", "--status", "over to bob", "--next-action", "carry on", "--json")
	var rel stick.ReleaseResult
	if err := json.Unmarshal([]byte(out), &rel); code != 0 || err != nil || rel.TurnID != 1 || rel.ReservedFor != "bob" || rel.State != stick.StateReserved {
		t.Fatalf("pass --json: %d %v %s", code, err, out)
	}
	if procid.Check(rep.Guardian) != procid.Gone {
		t.Fatalf("after pass: the holder still runs")
	}
	if code := waiter.wait(t); code != 0 || !strings.Contains(waiter.stdout.String(), "over to bob") {
		t.Fatalf("bob's wait after the pass: %d\n%s%s", code, waiter.stdout.String(), waiter.stderr.String())
	}
	if hs := holders(t, data); len(hs) != 1 || hs[0].AgentID != "bob" || hs[0].State != holder.Holding {
		t.Fatalf("records after the pass: %+v", hs)
	}
}

func TestKilledWaitLeavesNoHolder(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "wait")
	bob := startBin(t, repo, "--agent", "bob", "wait")
	waiting := waitingHolder(t, data, "bob").Guardian
	bob.signal(t, syscall.SIGKILL)
	bob.wait(t)
	eventually(t, "the waiting holder ends with its killed starter", func() bool { return procid.Check(waiting) == procid.Gone })
	if hs := holders(t, data); len(hs) != 1 || hs[0].AgentID == "bob" {
		t.Fatalf("records after the kill: %+v", hs)
	}
}

// A harness-run turn leaves the harness's member alive: the next release
// reserves the stick for it, as for any agent whose harness runs.
func TestHarnessMemberStaysInTheRotation(t *testing.T) {
	repo, data := holderRepo(t)
	script := fmt.Sprintf("%q wait %q && %q release %q --status s --next-action n && %q whoami", stickBin, repo, stickBin, repo, stickBin)
	harness := testproc.StartEnv(t, []string{"TALKING_STICK_DATA_DIR=" + data, "CLAUDECODE=1"}, "shell", "sh", "-c", script)
	var last string
	for {
		line, err := harness.ReadLine(safety)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "exit ") {
			if line != "exit 0" {
				t.Fatalf("harness command: %s", line)
			}
			break
		}
		last = line
	}
	mustRun(t, repo, "--agent", "bob", "wait")
	r := mustRun(t, repo, "--agent", "bob", "release", "--status", "s", "--next-action", "n", "--json")
	var rel stick.ReleaseResult
	if err := json.Unmarshal([]byte(r.stdout), &rel); err != nil || rel.ReservedFor != last {
		t.Fatalf("bob's release went to %q (%v), want the live harness agent %s", rel.ReservedFor, err, last)
	}
}

func TestHoldChecksItsFlagsFirst(t *testing.T) {
	repo, data := holderRepo(t)
	r := runBin(t, repo, nil, "hold", "--status", "s", "--next-action", "n", "--question", "")
	if r.code != 2 || !strings.Contains(r.stderr, "invalid_handoff") {
		t.Fatalf("hold with an empty question: %d %q", r.code, r.stderr)
	}
	r = runBin(t, repo, nil, "hold", "--artifact", "a.go:9-1")
	if r.code != 2 || !strings.Contains(r.stderr, "lines must be START-END") {
		t.Fatalf("hold with a bad artifact: %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "rooms.sqlite")); err == nil {
		if r := runBin(t, repo, nil, "state"); r.code != 1 {
			t.Fatalf("a rejected hold joined or created a room:\n%s", r.stdout)
		}
	}
}

func TestHoldAsksAgainAfterARejectedHandoff(t *testing.T) {
	repo, _ := holderRepo(t)
	hold := startBin(t, repo, "hold")
	hold.readUntil(t, "your turn")
	hold.signal(t, os.Interrupt)
	fmt.Fprint(hold.stdin, "bad\xffstatus\nnext\n\n\ngood status\ngood next\n\n\n")
	if code := hold.wait(t); code != 0 {
		t.Fatalf("hold: exit %d\n%s%s", code, hold.stdout.String(), hold.stderr.String())
	}
	if !strings.Contains(hold.stdout.String(), "once more:") {
		t.Fatalf("hold did not ask again:\n%s", hold.stdout.String())
	}
	if h := roomState(t, repo).PendingHandoff.Handoff; h.Status != "good status" || h.NextAction != "good next" {
		t.Fatalf("handoff = %+v", h)
	}
}

func TestTwoWaitsOfOneIdentity(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "--agent", "bob", "wait")
	first := startBin(t, repo, "wait")
	eventually(t, "the first wait waits", func() bool { return len(holders(t, data)) == 2 })
	r := runBin(t, repo, nil, "wait", "--timeout", "1s")
	if r.code != 1 || !strings.Contains(r.stderr, "already waits for the stick") {
		t.Fatalf("second wait of one identity: %d %q", r.code, r.stderr)
	}
	mustRun(t, repo, "--agent", "bob", "release", "--status", "s", "--next-action", "n")
	if code := first.wait(t); code != 0 {
		t.Fatalf("first wait: %d %s", code, first.stderr.String())
	}
	mustRun(t, repo, "release", "--status", "s", "--next-action", "n")
}
