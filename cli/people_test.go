package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// Outside any project, a join creates no room at the filesystem root, the
// home directory or a top-level directory such as /etc; 'stick where
// --explain' says why; a plain directory is still a room of its own.
func TestBinaryJoinOutsideProject(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := append(append([]string(nil), b.env...), "HOME="+home)
	hint := "run inside a git repository, add a marker file (CLAUDE.md, AGENTS.md, package.json, pyproject.toml, Cargo.toml, go.mod) " +
		"to the project's top directory, or pass a project directory"

	r := runBin(t, home, env, "join")
	checkFailure(t, "join in the home directory", r, 2,
		`stick: invalid_argument: path "`+home+`" is in no project: `+home+` is your home directory, and no room is created there`, hint)
	r = runBin(t, home, env, "join", "/")
	checkFailure(t, "join /", r, 2, `stick: invalid_argument: path "/" is in no project: / is the filesystem root, and no room is created there`, hint)
	if _, err := os.Stat("/etc/passwd"); err == nil && !isProject("/etc") && !isProject("/") {
		r = runBin(t, home, env, "join", "/etc/passwd")
		checkFailure(t, "join /etc/passwd", r, 2,
			`stick: invalid_argument: path "/etc/passwd" is in no project: /etc is a top-level system directory, and no room is created there`, hint)
		out := runBin(t, home, env, "where", "--explain", "/etc/passwd").stdout
		if !strings.Contains(out, "\nroot      /etc\n") || !strings.Contains(out, "refused: /etc is a top-level system directory; joining here creates no room\n") {
			t.Errorf("where --explain /etc/passwd:\n%s", out)
		}
	}
	if out := runBin(t, home, env, "list", "--all", "--json").stdout; strings.TrimSpace(out) != "[]" {
		t.Fatalf("a refused join created a room: %s", out)
	}

	// A plain directory below the home directory (no git, no marker) is
	// its own room, as before.
	plain := filepath.Join(home, "scratch")
	if err := os.Mkdir(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	var j stick.JoinResult
	if err := json.Unmarshal([]byte(runBin(t, plain, env, "join", "--json").stdout), &j); err != nil || j.CanonicalPath != plain || !j.Created {
		t.Fatalf("join of a plain directory: %v %+v", err, j)
	}
	var w struct {
		Root string `json:"root"`
		How  string `json:"how"`
		Room string `json:"room_id"`
	}
	if err := json.Unmarshal([]byte(runBin(t, plain, env, "where", "--explain", "--json").stdout), &w); err != nil ||
		w.Root != plain || w.How != "path" || w.Room != j.RoomID {
		t.Errorf("where --explain --json: %v %+v", err, w)
	}
}

func isProject(dir string) bool {
	for _, name := range []string{".git", "CLAUDE.md", "AGENTS.md", "package.json", "pyproject.toml", "Cargo.toml", "go.mod"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// The next steps and hints a command prints keep the --agent it ran with.
func TestBinaryNextStepsKeepAgent(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join", "--agent", "codex:1")
	b.ok(t, "join")
	b.ok(t, "note", "one")
	b.ok(t, "note", "two")
	if out := b.ok(t, "sync", "--agent", "codex:1", "--max", "1"); !strings.Contains(out, "more: run 'stick sync --agent codex:1' again") {
		t.Errorf("sync --agent: %q", out)
	}
	if out := b.ok(t, "events", "--agent", "codex:1", "-n", "1"); !strings.HasPrefix(out, "earlier: stick events --agent codex:1 ") {
		t.Errorf("events --agent: %q", out)
	}
	outside := t.TempDir()
	r := runBin(t, outside, b.env, "state", "--agent", "codex:1")
	if r.code != 1 || !strings.Contains(r.stderr, "hint: run 'stick join --agent codex:1 "+outside+"'") {
		t.Errorf("state --agent outside a room: %+v", r)
	}
	r = b.run(t, "note", "--agent", "stranger", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "hint: run 'stick join --agent stranger' first. Only wait, try and hold join by themselves") {
		t.Errorf("note by a stranger: %+v", r)
	}
	r = b.run(t, "release", "--agent", "codex:1", "--status", "s", "--next-action", "n")
	if r.code != 1 || !strings.Contains(r.stderr, "stale_lease") || !strings.Contains(r.stderr, "run 'stick wait --agent codex:1' (or 'stick hold --agent codex:1')") {
		t.Errorf("release --agent without the stick: %+v", r)
	}
	// A second leave says there is nothing to leave, not to join.
	b.ok(t, "leave", "--agent", "codex:1")
	r = b.run(t, "leave", "--agent", "codex:1")
	if r.code != 1 || !strings.Contains(r.stderr, "there is nothing to leave") || strings.Contains(r.stderr, "stick join") {
		t.Errorf("a second leave: %+v", r)
	}
}
