package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/golden (go test ./cli -run Golden -update)")

// goldenStart is the fixed time every scene starts at; it shows in event
// times and in lease and claim deadlines. The commands print those in local
// time, so it is a local time: the golden files hold in every time zone (a
// mid-June weekday, far from the usual daylight-saving changes).
var goldenStart = time.Date(2025, time.June, 11, 9, 26, 53, 0, time.Local)

// scene is a workspace and a database whose services, the commands' and the
// test's own, all run on one manual clock. The test's service makes the turns
// (claims, releases) that no command under test makes.
type scene struct {
	t     *testing.T
	repo  string
	clock *testclock.Clock
	svc   *stick.Service
	// subst maps strings that differ from run to run (temporary paths, room
	// ids) to the fixed placeholders the golden files show.
	subst [][2]string
	rooms map[string]bool
	// tokens holds the reclaim token of each member the scene joined, which
	// a command acting as a member run by a program needs, as its agent
	// would give it (see run).
	tokens map[string]string
}

func newScene(t *testing.T) *scene {
	t.Helper()
	repo := setup(t)
	fakeEnv(t, map[string]string{"USER": "ana"})
	clk := testclock.New(goldenStart)
	st, err := store.OpenDefault()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st, stick.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	s := &scene{t: t, repo: repo, clock: clk, svc: svc, rooms: map[string]bool{}, tokens: map[string]string{}}
	s.name(repo, "<repo>")
	s.name(os.Getenv("TALKING_STICK_DATA_DIR"), "<data>")
	return s
}

// name makes the golden files show placeholder wherever s appears.
func (s *scene) name(str, placeholder string) { s.subst = append(s.subst, [2]string{str, placeholder}) }

// mkdir makes a directory below the workspace and returns its path.
func (s *scene) mkdir(rel string) string {
	s.t.Helper()
	dir := filepath.Join(s.repo, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.t.Fatal(err)
	}
	return dir
}

// run runs the command line in-process with stdin and returns its exit code,
// standard output and standard error.
// A command run with --agent naming a member the scene joined gets that
// member's reclaim token in $TALKING_STICK_RECLAIM_TOKEN.
func (s *scene) run(stdin string, args ...string) (int, string, string) {
	s.t.Helper()
	for i := 1; i < len(args); i++ {
		if tok := s.tokens[args[i]]; args[i-1] == "--agent" && tok != "" {
			old := getenv
			getenv = func(k string) string {
				if k == identity.ReclaimTokenEnv {
					return tok
				}
				return old(k)
			}
			defer func() { getenv = old }()
		}
	}
	var out, errb bytes.Buffer
	code := Execute(context.Background(), LocalWiring(stick.WithClock(s.clock)), args, strings.NewReader(stdin), &out, &errb, "v1.2.3")
	return code, out.String(), errb.String()
}

// ok runs a command that must succeed and returns its standard output.
func (s *scene) ok(args ...string) string {
	s.t.Helper()
	code, out, errOut := s.run("", args...)
	if code != 0 {
		s.t.Fatalf("stick %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// join makes agent a member of the room of path through the library, as
// 'stick join' does (whose own output TestGoldenJoin and TestJSONJoin check).
func (s *scene) join(agent, path string, forceNew bool) {
	s.t.Helper()
	c := stick.Caller{AgentID: agent, Kind: stick.KindOneShot}
	res, err := s.svc.JoinPath(context.Background(), c, stick.JoinRequest{Path: path, ForceNew: forceNew})
	if err != nil {
		s.t.Fatal(err)
	}
	if res.ReclaimToken != "" {
		s.tokens[res.AgentID] = res.ReclaimToken
	}
}

// roomID returns the id of the open room of path.
func (s *scene) roomID(path string) string {
	s.t.Helper()
	rooms, err := s.svc.ListRooms(context.Background(), path)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, r := range rooms {
		if r.State != stick.StateClosed && r.RoomName == "" && (r.CanonicalPath == path || strings.HasPrefix(path, r.CanonicalPath+"/")) {
			return r.RoomID
		}
	}
	s.t.Fatalf("no room for %s", path)
	return ""
}

// codex is the agent that takes turns through the library.
var codex = stick.Caller{AgentID: "codex:1", Kind: stick.KindProcess}

// claim makes c claim the stick of room, which must be free for it.
func (s *scene) claim(c stick.Caller, room string) stick.Lease {
	s.t.Helper()
	zero := time.Duration(0)
	w, err := s.svc.WaitForTurn(context.Background(), c, stick.WaitRequest{RoomID: room, MaxWait: &zero})
	if err != nil || w.Status != stick.YourTurn {
		s.t.Fatalf("claim: %+v %v", w, err)
	}
	return w.Lease()
}

// sampleHandoff exercises every part of the handoff printer.
var sampleHandoff = stick.Handoff{
	Status:     "parser done\nlexer untouched",
	NextAction: "add tests for the error path",
	Artifacts: []stick.Artifact{
		{Path: "parse.go", Lines: []int{3, 9}, Role: stick.RoleEdit, Note: "error path"},
		{Path: "README.md", Role: stick.RoleContext},
	},
	OpenQuestions: []string{"keep the old syntax?"},
	DoNot:         []string{"touch the generated files"},
}

func (s *scene) release(c stick.Caller, l stick.Lease, h stick.Handoff) {
	s.t.Helper()
	if _, err := s.svc.Release(context.Background(), c, l, h); err != nil {
		s.t.Fatal(err)
	}
}

// agoRE matches the relative times of the list and state tables. The
// commands compute them from the wall clock rather than the service clock,
// so against the fixed scene time they only say "many days ago".
var agoRE = regexp.MustCompile(`(?m)\b\d+d ago$`)

// normalise replaces what differs from run to run: the scene's named paths,
// room ids (numbered in the order they first appear) and relative times.
// handedOn sets up the room the events tests read: ana and codex join a
// minute apart, codex claims and releases with sampleHandoff, a minute
// between each step, and returns the room's id.
func (s *scene) handedOn() string {
	s.join("human:ana", s.repo, false)
	s.clock.Advance(time.Minute)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	s.clock.Advance(time.Minute)
	l := s.claim(codex, room)
	s.clock.Advance(time.Minute)
	s.release(codex, l, sampleHandoff)
	s.clock.Advance(time.Minute)
	return room
}

func (s *scene) normalise(text string) string {
	s.t.Helper()
	rooms, err := s.svc.ListRooms(context.Background(), "")
	if err != nil {
		s.t.Fatal(err)
	}
	for _, r := range rooms {
		if !s.rooms[r.RoomID] && strings.Contains(text, r.RoomID) {
			s.rooms[r.RoomID] = true
			s.name(r.RoomID, fmt.Sprintf("<room-%d>", len(s.rooms)))
		}
	}
	for _, p := range s.subst {
		text = strings.ReplaceAll(text, p[0], p[1])
	}
	return agoRE.ReplaceAllString(text, "<ago>")
}

// transcript records command lines and their output for a golden file.
type transcript struct {
	s *scene
	b strings.Builder
}

// run runs a command, records it and returns its exit code and raw output.
func (tr *transcript) run(stdin string, args ...string) (int, string) {
	tr.s.t.Helper()
	code, out, errOut := tr.s.run(stdin, args...)
	tr.record(stdin, args, code, tr.s.normalise(out), errOut)
	return code, out
}

// table is run for a command whose whole output is a table: it checks the
// columns line up, then records the table re-aligned after normalisation
// (placeholders are shorter than the paths and ids they replace).
func (tr *transcript) table(args ...string) {
	tr.s.t.Helper()
	code, out, errOut := tr.s.run("", args...)
	checkAligned(tr.s.t, out)
	tr.record("", args, code, realign(tr.s.normalise(out)), errOut)
}

func (tr *transcript) record(stdin string, args []string, code int, out, errOut string) {
	tr.s.t.Helper()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if !strings.HasPrefix(a, "# ") && (a == "" || strings.ContainsAny(a, " \t\n'\"$")) {
			quoted[i] = fmt.Sprintf("%q", a)
		}
	}
	line := "$ stick " + strings.Join(quoted, " ")
	if stdin != "" {
		line = fmt.Sprintf("$ printf %q | stick %s", stdin, strings.Join(quoted, " "))
	}
	fmt.Fprintf(&tr.b, "%s\n%s", tr.s.normalise(line), out)
	if errOut != "" {
		fmt.Fprintf(&tr.b, "[stderr]\n%s", tr.s.normalise(errOut))
	}
	if code != 0 {
		fmt.Fprintf(&tr.b, "[exit %d]\n", code)
	}
	tr.b.WriteString("\n")
}

// check compares the transcript with testdata/golden/<name>.txt, or
// rewrites that file with -update.
func (tr *transcript) check(name string) {
	t := tr.s.t
	t.Helper()
	got := tr.b.String()
	if strings.Contains(got, "\x1b[") {
		t.Errorf("colour codes in output that is not a terminal:\n%q", got)
	}
	path := filepath.Join("testdata", "golden", name+".txt")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; create it with: go test ./cli -run Golden -update", err)
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		gl, wl := "<end of output>", "<end of file>"
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s: line %d differs (accept with -update)\n got: %q\nwant: %q\n\nwhole output:\n%s", path, i+1, gl, wl, got)
		}
	}
}

// cellStart matches the start of every table cell after the first: a
// non-space after at least two spaces.
var cellStart = regexp.MustCompile(`  [^ ]`)

func cellStarts(line string) []int {
	starts := []int{0}
	for _, m := range cellStart.FindAllStringIndex(line, -1) {
		starts = append(starts, m[1]-1)
	}
	return starts
}

// checkAligned checks that every line of a table starts its cells at the
// columns where the header starts its titles.
func checkAligned(t *testing.T, table string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	header := cellStarts(lines[0])
	for _, l := range lines[1:] {
		if got := cellStarts(l); fmt.Sprint(got) != fmt.Sprint(header) {
			t.Errorf("table misaligned: cells of %q start at %v, the header's at %v\n%s", l, got, header, table)
		}
	}
}

// realign lays out a table again as printer.table does, for cells whose
// width changed in normalisation.
func realign(table string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, l := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		fmt.Fprintln(tw, regexp.MustCompile(`  +`).ReplaceAllString(l, "\t"))
	}
	tw.Flush()
	return b.String()
}

// The golden tests: one transcript per command, each from a fresh database
// on the fixed clock.

func TestGoldenVersion(t *testing.T) {
	tr := &transcript{s: newScene(t)}
	tr.run("", "version")
	tr.run("", "--version")
	tr.run("", "version", "extra")
	tr.check("version")
}

func TestGoldenWhere(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	tr.run("", "where")
	tr.run("", "where", "--explain", s.repo)
	pkg := s.mkdir("pkg")
	s.join("human:ana", s.repo, false)
	tr.run("", "where", "--explain", pkg)
	// No git and no marker: the path itself; the home directory is refused.
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.name(home, "<home>")
	t.Setenv("HOME", home)
	plain := filepath.Join(home, "plain")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	tr.run("", "where", "--explain", plain)
	tr.run("", "where", "--explain", home)
	tr.run("", "join", home)
	tr.run("", "where", "x")
	tr.check("where")
}

func TestGoldenWhoami(t *testing.T) {
	tr := &transcript{s: newScene(t)}
	tr.run("", "whoami")
	tr.run("", "whoami", "--explain")
	tr.run("", "whoami", "--agent", "reviewer", "--explain")
	tr.check("whoami")
}

func TestGoldenJoin(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	pkg := s.mkdir("pkg")
	tr.run("", "join", pkg)
	s.clock.Advance(time.Minute)
	tr.run("", "join", s.repo, "--agent", "codex:1")
	tr.run("", "join", s.repo)
	tr.run("", "join", pkg, "--force-new")
	tr.check("join")
}

func TestGoldenList(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	elsewhere, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.name(elsewhere, "<elsewhere>")
	tr.run("", "list", elsewhere)
	pkg := s.mkdir("pkg")
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	s.clock.Advance(time.Minute)
	s.release(codex, s.claim(codex, room), sampleHandoff)
	s.join("human:ana", pkg, true)
	tr.table("list", s.repo)
	tr.table("list", pkg)
	tr.table("list", "--all")
	tr.check("list")
}

func TestGoldenState(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	pkg := s.mkdir("pkg")
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	tr.run("", "state", s.repo)
	s.clock.Advance(time.Minute)
	l := s.claim(codex, room)
	tr.run("", "state", s.repo)
	s.clock.Advance(50 * time.Minute) // past the 45 min lease
	tr.run("", "state", s.repo)
	s.release(codex, l, sampleHandoff)
	tr.run("", "state", pkg)
	s.clock.Advance(5 * time.Hour) // past the 4 h presence
	tr.run("", "state", pkg)
	tr.check("state")
}

func TestGoldenEvents(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	s.handedOn()
	if code, _, errOut := s.run("first line\nsecond line\n", "note", "--path", s.repo, "-"); code != 0 {
		t.Fatal(errOut)
	}
	s.ok("policy", s.repo, "--lease", "10m")
	tr.run("", "events", s.repo)
	tr.run("", "events", s.repo, "--after", "2", "--limit", "2")
	tr.run("", "events", s.repo, "--after", "99")
	// The newest by default: -n (--tail) N of them, and the way to the start.
	tr.run("", "events", s.repo, "-n", "2")
	tr.run("", "events", s.repo, "--agent", "codex:1", "--limit", "1")
	tr.run("", "events", s.repo, "-n", "2", "--after", "1")

	// --follow prints what is there, then each event as it commits, until interrupted.
	ctx, cancel := context.WithCancelCause(context.Background())
	out := &syncBuffer{}
	var errb bytes.Buffer
	done := make(chan int, 1)
	args := []string{"events", s.repo, "--after", "5", "--follow"}
	go func() {
		done <- Execute(ctx, LocalWiring(stick.WithClock(s.clock)), args, strings.NewReader(""), out, &errb, "v1.2.3")
	}()
	waitFor(t, func() bool { return strings.Count(out.String(), "\n") >= 1 })
	s.clock.Advance(time.Minute)
	s.ok("note", "--path", s.repo, "--agent", "codex:1", "on it")
	waitFor(t, func() bool { return strings.Count(out.String(), "\n") >= 2 })
	cancel(Interrupted{Signal: os.Interrupt})
	var code int
	select {
	case code = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("--follow did not stop when interrupted")
	}
	tr.record("", append(args, "# interrupted after codex:1's note"), code, s.normalise(out.String()), errb.String())
	tr.check("events")
}

func TestGoldenNote(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	tr.run("", "note", "--path", s.repo, "CI is red on main")
	tr.run("first line\nsecond line\n", "note", "--path", s.repo, "-")
	tr.run("", "note", "--path", s.repo, "--agent", "codex:1", "looking into it")
	tr.run("", "events", s.repo, "--after", "2")
	tr.run("", "note", "--path", s.repo, "   ")
	tr.run("", "note", "--path", s.repo, "--agent", "stranger", "hello")
	// Several words are one note, as in 'stick search'.
	tr.run("", "note", "--path", s.repo, "CI", "is", "red")
	tr.run("", "note", "--path", s.repo, "--id", "deploy-417", "deployed")
	tr.run("", "note", "--path", s.repo, "--id", "deploy-417", "deployed")
	tr.run("", "note", "--path", s.repo, "--id", "deploy-417", "deployed, finally")
	tr.run("", "events", s.repo, "-n", "2")
	tr.run("", "note")
	tr.run("", "note", s.repo, "hello")
	tr.check("note")
}

func TestGoldenLeave(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	s.release(codex, s.claim(codex, room), sampleHandoff)
	tr.run("", "leave", s.repo) // the stick was reserved for ana: the room becomes idle
	tr.run("", "state", s.repo)
	tr.run("", "leave", s.repo)
	s.claim(codex, room)
	tr.run("", "leave", s.repo, "--agent", "codex:1")
	tr.check("leave")
}

func TestGoldenClose(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	l := s.claim(codex, room)
	tr.run("", "close", s.repo, "--yes", "--reason", "v1 shipped")
	s.clock.Advance(time.Minute)
	s.release(codex, l, stick.Handoff{Status: "done", NextAction: "close the room"})
	tr.run("", "close", s.repo, "--reason", "v1 shipped")
	terminal(t)
	tr.run("n\n", "close", s.repo, "--reason", "v1 shipped")
	tr.run("y\n", "close", s.repo, "--reason", "v1 shipped")
	s.clock.Advance(time.Minute)
	tr.run("We chose B.\n", "close", s.repo, "--conclusion", "-")
	tr.table("list", s.repo)
	tr.run("", "events", s.repo, "--after", "4")
	tr.run("", "state", s.repo)
	tr.check("close")
}

func TestGoldenPolicy(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	s.join("human:ana", s.repo, false)
	tr.run("", "policy", s.repo)
	tr.run("", "policy", s.repo, "--lease", "10m", "--heartbeat", "1m", "--claim", "5m")
	tr.run("", "policy", s.repo, "--claim", "0")
	tr.run("", "policy", s.repo, "--heartbeat", "2h")
	tr.run("", "policy", s.repo, "--lease", "soon")
	tr.check("policy")
}

// terminal makes the commands of the test take their standard input for a
// terminal a person answers questions on.
func terminal(t *testing.T) {
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { stdinIsTerminal = old })
}
