package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/cli/demo"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// demoChecks are the checks every run reports, in order.
var demoChecks = []string{"agents_joined", "turns_in_order", "one_holder_at_a_time", "handoffs_delivered", "killed_mid_turn",
	"owner_gone_detected", "takeover", "recovered_from_log", "work_complete", "closed_cleanly", "cleaned_up"}

// demoTmp gives a run of the demo its own temporary directory and checks,
// when the test ends, that the run left nothing in it.
func demoTmp(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	t.Cleanup(func() {
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("the demo left %v in its temporary directory", left)
		}
	})
	return tmp
}

func TestDemo(t *testing.T) {
	r := runBin(t, "", []string{"TMPDIR=" + demoTmp(t)}, "demo")
	if r.code != 0 {
		t.Fatalf("stick demo exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("stick demo:\n%s", r.stdout)
	for _, want := range []string{
		"demo:alice  joined (pid ", "demo:bob    joined (pid ", "demo:carol  joined (pid ",
		`handoff #`, `read back "1. demo:alice wrote this in turn 1"`, // a real handoff, checked against the workspace
		"the room while demo:bob holds turn 5:", "holder demo:bob", // the room, printed as 'stick state' does
		"SIGKILL demo:bob (pid ", "in the middle of turn 5",
		"wait_for_turn: takeover_available, reason owner_gone (demo:bob)",
		"took over: turn 6 is now its own, revoked from demo:bob (reason owner_gone)",
		"read the log to recover demo:bob's turn 5 (it left no handoff):",
		`recent handoff #`, `from demo:alice: "appended line 4 to notes.txt in turn 4"`,
		`demo:bob noted (#`, `"turn 5: appending line 5 to notes.txt"`,
		`its critical-section file holder.lock still said "demo:bob turn 5": removed`,
		"finishing demo:bob's turn 5",
		"the room after the last turn:", "closed the room (event #",
		"10 turns in ", "everything happened as expected",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, name := range demoChecks {
		if !regexp.MustCompile(`(?m)^  ✓ ` + name + ` `).MatchString(r.stdout) {
			t.Errorf("the summary lacks a passed check %s", name)
		}
	}
	if strings.Contains(r.stdout, "✗") {
		t.Errorf("a check failed")
	}
}

func TestDemoJSON(t *testing.T) {
	r := runBin(t, "", []string{"TMPDIR=" + demoTmp(t)}, "demo", "--json")
	if r.code != 0 {
		t.Fatalf("stick demo --json exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var s demo.Summary
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil || dec.More() {
		t.Fatalf("stdout is not one summary object (%v):\n%s", err, r.stdout)
	}
	var names []string
	for _, c := range s.Checks {
		names = append(names, c.Name)
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
	if !slices.Equal(names, demoChecks) {
		t.Errorf("checks %v, want %v", names, demoChecks)
	}
	if !s.OK || s.Turns != 10 || s.Killed != "demo:bob" || s.KilledTurn != 5 || s.KeptDir != "" {
		t.Errorf("summary: %+v", s)
	}
	if s.TakenOverBy != "demo:alice" && s.TakenOverBy != "demo:carol" {
		t.Errorf("taken over by %q, want a survivor", s.TakenOverBy)
	}
	// Both survivors learn that demo:bob is gone, and long before its 45 min
	// lease would have run out: the bound only rules out waiting for a timeout.
	if len(s.OwnerGone) != 2 {
		t.Errorf("owner_gone detections: %+v", s.OwnerGone)
	}
	for _, d := range s.OwnerGone {
		if d.AfterMS < 0 || d.AfterMS > 60_000 || (d.Via != "wait_for_turn" && d.Via != "log") {
			t.Errorf("detection %+v", d)
		}
	}
	if s.TakeoverMS < 0 || s.TakeoverMS > 60_000 || s.DurationMS <= 0 {
		t.Errorf("timings: %+v", s)
	}
	if !strings.Contains(r.stderr, "SIGKILL demo:bob") {
		t.Errorf("with --json the story goes to stderr, got:\n%s", r.stderr)
	}
}

// With --keep the database and the workspace stay, and they hold what the
// summary claims: an independent reading of the log.
func TestDemoKeep(t *testing.T) {
	r := runBin(t, "", []string{"TMPDIR=" + t.TempDir()}, "demo", "--keep")
	if r.code != 0 {
		t.Fatalf("stick demo --keep exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`✓ cleaned_up\s+kept (\S+)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no kept directory in:\n%s", r.stdout)
	}
	dir := m[1]
	notes, err := os.ReadFile(filepath.Join(dir, "workspace", "notes.txt"))
	if err != nil || strings.Count(string(notes), "\n") != 9 {
		t.Fatalf("notes.txt: %v\n%s", err, notes)
	}
	st, err := store.OpenDir(filepath.Join(dir, "data"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rooms, err := svc.ListRooms(ctx, "")
	if err != nil || len(rooms) != 1 || rooms[0].State != stick.StateClosed || rooms[0].TurnID != 10 {
		t.Fatalf("rooms: %+v %v", rooms, err)
	}
	page, err := svc.RoomEvents(ctx, rooms[0].RoomID, 0, stick.MaxEventLimit)
	if err != nil {
		t.Fatal(err)
	}
	var takeovers, releases, closes int
	for _, ev := range page.Events {
		switch ev.Type {
		case stick.EventTakeover:
			takeovers++
			if ev.TurnID != 6 || ev.To != "demo:bob" || ev.Reason != "owner_gone" {
				t.Errorf("takeover: %+v", ev)
			}
		case stick.EventRelease:
			releases++
			if ev.Handoff == nil || len(ev.Handoff.Artifacts) != 1 || ev.Handoff.Artifacts[0].Role != stick.RoleReview {
				t.Errorf("release without the expected handoff: %+v", ev)
			}
		case stick.EventClose:
			closes++
			if ev.From != "demo:driver" || ev.Text == "" {
				t.Errorf("close: %+v", ev)
			}
		}
	}
	if takeovers != 1 || releases != 9 || closes != 1 {
		t.Errorf("%d takeovers, %d releases, %d closes; want 1, 9, 1", takeovers, releases, closes)
	}
}

// Interrupting the demo (Ctrl-C cancels its context) kills the agents,
// removes the temporary directory, leaves no goroutine behind and reports
// canceled.
func TestDemoInterrupted(t *testing.T) {
	t.Setenv("TMPDIR", demoTmp(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var agents []procid.Identity
	out := &demoLines{onLine: func(line string) {
		if m := regexp.MustCompile(`(demo:\w+)\s+joined \(pid (\d+)\)`).FindStringSubmatch(line); m != nil {
			pid, _ := strconv.Atoi(m[2])
			id, err := procid.Of(pid) // the agent runs: it only exits after the room closes
			if err != nil {
				t.Errorf("agent %s (pid %d): %v", m[1], pid, err)
			}
			agents = append(agents, id)
			if m[1] == "demo:carol" {
				cancel()
			}
		}
	}}
	_, err := demo.Run(ctx, demo.Options{Out: out, Executable: stickBin})
	if stick.ErrorCode(err) != stick.CodeCanceled {
		t.Fatalf("Run: %v, want canceled; output:\n%s", err, out)
	}
	if len(agents) != 3 {
		t.Fatalf("saw %d agents start, want 3; output:\n%s", len(agents), out)
	}
	for _, id := range agents {
		if s := procid.Check(id); s != procid.Gone {
			t.Errorf("agent pid %d outlived the demo: %v", id.PID, s)
		}
	}
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "stick/cli/demo.") {
		t.Errorf("goroutines of the demo are left:\n%s", stacks)
	}
}

// The agents die with the driver, even when it is killed and cannot clean up.
func TestDemoAgentsDieWithTheDriver(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux ties a child's life to its parent's; elsewhere the agents notice through stdin")
	}
	cmd := exec.Command(stickBin, "demo")
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var agents []procid.Identity
	sc := bufio.NewScanner(stdout)
	for len(agents) < 3 && sc.Scan() {
		if m := regexp.MustCompile(`joined \(pid (\d+)\)`).FindStringSubmatch(sc.Text()); m != nil {
			pid, _ := strconv.Atoi(m[1])
			id, err := procid.Of(pid)
			if err != nil {
				t.Fatalf("agent pid %d: %v", pid, err)
			}
			agents = append(agents, id)
		}
	}
	if len(agents) != 3 {
		t.Fatalf("saw %d agents start: %v", len(agents), sc.Err())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a failure bound only
	defer cancel()
	for _, id := range agents {
		gone, ok := procid.WatchExit(ctx, id)
		if !ok {
			t.Skip("cannot watch process exits here")
		}
		select {
		case <-gone:
		case <-ctx.Done():
			t.Fatalf("agent pid %d outlived its driver", id.PID)
		}
	}
}

// The agent command is hidden, and refuses to run without the driver's arguments.
func TestDemoAgentIsHidden(t *testing.T) {
	r := runBin(t, "", nil, "demo", "--help")
	if r.code != 0 || strings.Contains(r.stdout, "agent NAME") || !strings.Contains(r.stdout, "--keep") {
		t.Fatalf("demo --help: %d\n%s", r.code, r.stdout)
	}
	r = runBin(t, "", nil, "demo", "agent")
	if r.code != 1 || !strings.Contains(r.stderr, "invalid_argument") || !strings.Contains(r.stderr, "stick demo") {
		t.Fatalf("demo agent: %d\n%s", r.code, r.stderr)
	}
}

// demoLines is an io.Writer that calls onLine for each complete line.
type demoLines struct {
	mu     sync.Mutex
	all    bytes.Buffer
	part   []byte
	onLine func(string)
}

func (w *demoLines) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all.Write(p)
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.part[:i])
		w.part = w.part[i+1:]
		w.onLine(line)
	}
}

func (w *demoLines) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}
