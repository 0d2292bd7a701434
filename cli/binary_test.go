package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
)

// binRoom is a workspace and a database of its own for tests of the built
// binary; env points the binary at the database and acts as human:ana.
type binRoom struct {
	repo, data string
	env        []string
}

func newBinRoom(t *testing.T) binRoom {
	t.Helper()
	data := t.TempDir()
	return binRoom{repo: testkit.Repo(t), data: data, env: []string{
		"TALKING_STICK_DATA_DIR=" + data, identity.AgentEnv + "=human:ana",
	}}
}

// run runs the binary in the workspace.
func (b binRoom) run(t *testing.T, args ...string) binResult {
	t.Helper()
	return runBin(t, b.repo, b.env, args...)
}

// ok runs the binary in the workspace; it must succeed with nothing on stderr.
func (b binRoom) ok(t *testing.T, args ...string) string {
	t.Helper()
	r := b.run(t, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("stick %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r.stdout
}

// checkFailure checks a failed run: its exit code, nothing on stdout, and
// stderr exactly the error line followed by the hint line (none when hint
// is "").
func checkFailure(t *testing.T, what string, r binResult, code int, line, hint string) {
	t.Helper()
	want := line + "\n"
	if hint != "" {
		want += "hint: " + hint + "\n"
	}
	if r.code != code || r.stdout != "" || r.stderr != want {
		t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit %d, stderr:\n%s", what, r.code, r.stdout, r.stderr, code, want)
	}
}

// usageHint marks an expected usage error; usage gives its hint, which names
// the command that failed.
const usageHint = "usage"

func usage(cmd string) string { return "run 'stick " + cmd + " --help' for usage" }

var allCommands = []string{"whoami", "list", "join", "state", "events", "note", "leave", "close", "policy", "where", "version"}

// An unknown flag is a usage error for every command: exit 2, the flag
// named, a hint, no output and no database touched.
func TestBinaryBadFlag(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	for _, c := range allCommands {
		r := b.run(t, c, "--frobnicate")
		checkFailure(t, c+" --frobnicate", r, 2, "stick: unknown flag: --frobnicate", usage(c))
	}
	r := b.run(t, "events", "--limit")
	checkFailure(t, "events --limit", r, 2, "stick: flag needs an argument: --limit", usage("events"))
	if _, err := os.Stat(filepath.Join(b.data, "rooms.sqlite")); !os.IsNotExist(err) {
		t.Errorf("a usage error must not create the database: %v", err)
	}
}

// A path that does not exist is refused with the path named, before any
// room is looked up or created.
func TestBinaryMissingPath(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	missing := filepath.Join(b.repo, "no", "such", "dir")
	line := `stick: invalid_argument: path "` + missing + `" does not exist`
	hint := "pass an existing file or directory inside the workspace"
	for _, args := range [][]string{
		{"list", missing}, {"join", missing}, {"state", missing}, {"events", missing}, {"note", "--path", missing, "hello"},
		{"leave", missing}, {"close", missing}, {"policy", missing}, {"policy", missing, "--lease", "10m"},
	} {
		checkFailure(t, strings.Join(args, " "), b.run(t, args...), 2, line, hint)
	}
	// Relative paths are named as given.
	r := runBin(t, b.repo, b.env, "state", "nowhere")
	checkFailure(t, "state nowhere", r, 2, `stick: invalid_argument: path "nowhere" does not exist`, hint)
	if out := b.ok(t, "list", "--all", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("join of a missing path created a room: %s", out)
	}
}

// A path with no room: every command that needs one says so and how to
// make one; list says there is none; no room is created.
func TestBinaryOutsideRoom(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join") // a room elsewhere, so the database is not empty
	outside := testkit.Repo(t)
	if err := os.Mkdir(filepath.Join(outside, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	hint := func(p string) string {
		return "run 'stick join " + p + "' to create or join the room of this workspace"
	}
	for _, args := range [][]string{{"state"}, {"events"}, {"events", "--follow"}, {"note", "hello"}, {"leave"}, {"close", "--yes"}, {"policy"}, {"policy", "--lease", "10m"}} {
		// From the current directory, and with a relative path.
		r := runBin(t, outside, b.env, args...)
		checkFailure(t, strings.Join(args, " ")+" in "+outside, r, 1, "stick: room_not_found: no room for "+outside, hint(outside))
		withPath := append([]string{args[0], "sub"}, args[1:]...)
		if args[0] == "note" {
			withPath = []string{"note", "--path", "sub", "hello"}
		}
		r = runBin(t, outside, b.env, withPath...)
		checkFailure(t, strings.Join(withPath, " "), r, 1, "stick: room_not_found: no room for "+filepath.Join(outside, "sub"), hint("sub"))
	}
	r := runBin(t, outside, b.env, "list")
	if r.code != 0 || r.stdout != "no rooms here; 'stick join' creates one\n" || r.stderr != "" {
		t.Errorf("list outside any room: %+v", r)
	}
	var rooms []stick.RoomSummary
	if err := json.Unmarshal([]byte(b.ok(t, "list", "--all", "--json")), &rooms); err != nil || len(rooms) != 1 || rooms[0].CanonicalPath != b.repo {
		t.Errorf("only the first room may exist: %v %+v", err, rooms)
	}
}

// Bad values and arguments exit 2: usage errors with the usage hint, values
// the protocol rejects with their code; neither changes the room.
func TestBinaryBadValues(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join")
	noFile := filepath.Join(b.repo, "NOTES.md")
	for _, tc := range []struct {
		args       []string
		code       int
		line, hint string
	}{
		{[]string{"policy", "--lease", "x"}, 2, `stick: invalid argument "x" for "--lease" flag: time: invalid duration "x"`, usageHint},
		{[]string{"policy", "--claim", "10"}, 2, `stick: invalid argument "10" for "--claim" flag: time: missing unit in duration "10"`, usageHint},
		{[]string{"policy", "--lease", "-5m"}, 2, "stick: invalid_argument: --lease must not be negative (0 resets it to the default), got -5m", ""},
		{[]string{"policy", "--heartbeat", "2h"}, 2, "stick: invalid_argument: --heartbeat (2h) must be shorter than --lease (45m), or a working holder looks stale between heartbeats", ""},
		{[]string{"policy", "--presence", "1s", "--lease", "1s"}, 2, "stick: invalid_argument: --heartbeat (5m) must be shorter than --lease (1s), or a working holder looks stale between heartbeats", ""},
		{[]string{"events", "--after", "-1"}, 2, "stick: invalid_argument: after must be 0 or a previous cursor, got -1", ""},
		{[]string{"events", "--after", "x"}, 2, `stick: invalid argument "x" for "--after" flag: strconv.ParseInt: parsing "x": invalid syntax`, usageHint},
		{[]string{"events", "--after", "0", "--limit", "-3"}, 2, "stick: invalid_argument: limit must be between 0 (the default, 50) and 1000, got -3", ""},
		{[]string{"note", ""}, 2, "stick: invalid_argument: text must be non-empty", ""},
		{[]string{"note", " \n "}, 2, "stick: invalid_argument: text must be non-empty", ""},
		{[]string{"note"}, 2, "stick: 'stick note' needs TEXT, the words of the note, or - to read it from standard input", usageHint},
		{[]string{"pass"}, 2, "stick: 'stick pass' needs AGENT, the member to pass the stick to ('stick state' lists them)", usageHint},
		{[]string{"search"}, 2, "stick: 'stick search' needs QUERY, the words to search for", usageHint},
		{[]string{"completion"}, 2, "stick: 'stick completion' needs one of: bash, zsh, fish, powershell", usageHint},
		{[]string{"completion", "tcsh"}, 2, `stick: unknown command "tcsh" for "stick completion"`, usageHint},
		{[]string{"prompt"}, 2, "stick: 'stick prompt' needs one of: install, uninstall", usageHint},
		{[]string{"prompt", "install"}, 2, "stick: 'stick prompt install' needs a shell: bash, zsh or fish", "run 'stick prompt install --help' for usage"},
		{[]string{"leave", ".", "extra"}, 2, "stick: accepts at most 1 arg(s), received 2", usageHint},
		{[]string{"close", "--yes", "--conclusion", "@" + noFile}, 2, "stick: invalid_argument: cannot read conclusion from " + noFile + ": open " + noFile + ": no such file or directory",
			"give a readable file, or - to read standard input"},
		{[]string{"version", "x"}, 2, `stick: unknown command "x" for "stick version"`, usageHint},
		{[]string{"whoami", "x"}, 2, `stick: unknown command "x" for "stick whoami"`, usageHint},
		{[]string{"where", "x"}, 2, `stick: unknown command "x" for "stick where"`, usageHint},
		{[]string{"release", "--status", "done"}, 2, "stick: invalid_handoff: a handoff needs --status and --next-action",
			`say what you did and what comes next, e.g. --status "fixed the parser; tests pass" --next-action "review cli/handoff.go"`},
		{[]string{"release", "--status", "done", "--next-action", "review", "--artifact", "a.go:0-3"}, 2,
			`stick: invalid_argument: --artifact "a.go:0-3": lines must be START-END with 1 <= START <= END`,
			"write PATH, PATH:START-END or PATH:START-END=ROLE, e.g. --artifact cli/root.go:10-42=edit"},
	} {
		hint := tc.hint
		if hint == usageHint {
			hint = usage(tc.args[0])
		}
		checkFailure(t, strings.Join(tc.args, " "), b.run(t, tc.args...), tc.code, tc.line, hint)
	}

	// A data directory that is a file: the room commands say so; where only prints the path.
	file := filepath.Join(b.repo, "data-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), b.env...), "TALKING_STICK_DATA_DIR="+file)
	for _, c := range []string{"list", "join", "state"} {
		r := runBin(t, b.repo, env, c)
		checkFailure(t, c+" with a data file", r, 1, `stick: data_dir_unusable: cannot use the data directory: "`+file+`" exists but is not a directory`,
			"make "+file+" a writable directory, or set TALKING_STICK_DATA_DIR to one")
	}
	if r := runBin(t, b.repo, env, "where"); r.code != 0 || r.stdout != filepath.Join(file, "rooms.sqlite")+"\n" {
		t.Errorf("where with a data file: %+v", r)
	}

	// Nothing above changed the room: only the join is logged and the policy is the default.
	var page stick.EventPage
	if err := json.Unmarshal([]byte(b.ok(t, "events", "--json")), &page); err != nil || len(page.Events) != 1 || page.Events[0].Type != stick.EventJoin {
		t.Errorf("the failed commands changed the log: %v %+v", err, page)
	}
	var pol map[string]int64
	if err := json.Unmarshal([]byte(b.ok(t, "policy", "--json")), &pol); err != nil || pol["owner_lease_ttl_ms"] != 2_700_000 || pol["heartbeat_interval_ms"] != 300_000 {
		t.Errorf("the failed commands changed the policy: %v %v", err, pol)
	}
}

// Every command through the binary, from the workspace's directory without
// a path argument: exit 0, nothing on stderr, and the output's format.
func TestBinaryCommands(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	match := func(what, out, pattern string) []string {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%s: %q does not match %s", what, out, pattern)
		}
		return m
	}
	q := regexp.QuoteMeta

	match("version", b.ok(t, "version"), `^stick \S+\n$`)
	if out := b.ok(t, "where"); out != filepath.Join(b.data, "rooms.sqlite")+"\n" {
		t.Errorf("where: %q", out)
	}
	if out := b.ok(t, "whoami", "--explain"); out != "human:ana\nfrom $"+identity.AgentEnv+"\n" {
		t.Errorf("whoami --explain: %q", out)
	}
	var who map[string]string
	if err := json.Unmarshal([]byte(b.ok(t, "whoami", "--json")), &who); err != nil || who["agent_id"] != "human:ana" {
		t.Errorf("whoami --json: %v %v", err, who)
	}

	room := match("join", b.ok(t, "join"),
		`^created and joined room (room_[0-9a-f]{16}) at `+q(b.repo)+` as human:ana \(idle, turn 0, 1 member\)\n$`)[1]
	var j stick.JoinResult
	if err := json.Unmarshal([]byte(b.ok(t, "join", "--agent", "codex:1", "--json")), &j); err != nil ||
		j.RoomID != room || j.AgentID != "codex:1" || j.Created || len(j.Room.Members) != 2 {
		t.Errorf("join --json: %v %+v", err, j)
	}

	list := b.ok(t, "list")
	checkAligned(t, list)
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	// A loaded machine may take a second or more between the join and the
	// listing: "just now" or a few seconds ago are both right.
	recent := `(just now|[0-9]+s ago)`
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "ROOM PATH STATE HOLDER RESERVED TURN ACTIVE ACTIVITY" ||
		!regexp.MustCompile(`^`+regexp.QuoteMeta(room+" "+b.repo+" idle - - 0 2/2 ")+recent+`$`).MatchString(strings.Join(strings.Fields(lines[1]), " ")) {
		t.Errorf("list:\n%s", list)
	}

	match("state", b.ok(t, "state"), `^room `+room+` at `+q(b.repo)+`\nstate  idle, turn 0\n\n#\s+MEMBER\s+STATUS\s+TURN\s+LAST SEEN\n`+
		`1\s+human:ana\s+away\s+-\s+`+recent+`\n2\s+codex:1\s+away\s+-\s+`+recent+`\n$`)

	if out := b.ok(t, "note", "CI is red"); out != "note #3 posted to room "+room+" as human:ana\n" {
		t.Errorf("note: %q", out)
	}
	ev := `#%d\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  turn 0    `
	match("events", b.ok(t, "events"), `^`+strings.Join([]string{
		strings.Replace(ev, "%d", "1", 1) + `join     human:ana\n`,
		strings.Replace(ev, "%d", "2", 1) + `join     codex:1\n`,
		strings.Replace(ev, "%d", "3", 1) + `note     human:ana: CI is red\n`,
	}, "")+`$`)

	var pol map[string]int64
	if err := json.Unmarshal([]byte(b.ok(t, "policy", "--lease", "10m", "--json")), &pol); err != nil || pol["owner_lease_ttl_ms"] != 600_000 || len(pol) != 6 {
		t.Errorf("policy --json: %v %v", err, pol)
	}
	policy := b.ok(t, "policy")
	checkAligned(t, policy)
	if !strings.Contains(policy, "\nlease      10m    a silent holder may be taken over after this\n") {
		t.Errorf("policy:\n%s", policy)
	}

	if out := b.ok(t, "leave", "--agent", "codex:1"); out != "codex:1 left room "+room+"\n" {
		t.Errorf("leave: %q", out)
	}
	// --reason is optional.
	if out := b.ok(t, "close", "--yes"); out != "closed room "+room+"; its log stays readable ('stick events')\n" {
		t.Errorf("close: %q", out)
	}
	var page stick.EventPage
	if err := json.Unmarshal([]byte(b.ok(t, "events", "--after", "5", "--json")), &page); err != nil || len(page.Events) != 1 ||
		page.Events[0].Type != stick.EventClose || page.Events[0].Reason != "" || page.Events[0].From != "human:ana" {
		t.Errorf("the close event: %v %+v", err, page)
	}
}

// events --follow streams an event another process commits, and an
// interrupt ends it with exit 0.
func TestBinaryEventsFollow(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	room := b.ok(t, "join", "--json")
	var j stick.JoinResult
	if err := json.Unmarshal([]byte(room), &j); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(stickBin, "events", "--follow")
	cmd.Dir, cmd.Env = b.repo, append(os.Environ(), b.env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	t.Cleanup(func() {
		if !exited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("waiting for %s: the stream ended; stderr: %s", what, stderr.String())
			}
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("waiting for %s: no line within 20 s", what)
		}
		return ""
	}

	if l := next("the join"); !regexp.MustCompile(`^#1\s.*  join     human:ana$`).MatchString(l) {
		t.Fatalf("first line: %q", l)
	}
	if out := b.ok(t, "note", "from another process"); !strings.HasPrefix(out, "note #2 posted") {
		t.Fatalf("note: %q", out)
	}
	if l := next("the note"); !regexp.MustCompile(`^#2\s.*  note     human:ana: from another process$`).MatchString(l) {
		t.Fatalf("streamed line: %q", l)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for _, l := range drain(t, lines) {
		t.Errorf("unexpected line after the interrupt: %q", l)
	}
	err = cmd.Wait()
	exited = true
	if code := cmd.ProcessState.ExitCode(); code != 130 || stderr.String() != "stick: interrupted\n" {
		t.Fatalf("interrupted --follow: %v, exit %d, stderr %q", err, code, stderr.String())
	}
}

// drain returns the lines left in a stream that is ending, failing the test
// if it does not end within a generous deadline.
func drain(t *testing.T, lines <-chan string) []string {
	t.Helper()
	var rest []string
	deadline := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return rest
			}
			rest = append(rest, l)
		case <-deadline:
			t.Fatal("the stream did not end within 20 s of the interrupt")
		}
	}
}
