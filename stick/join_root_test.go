package stick_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// Joining outside any project never creates a room at the filesystem root
// or the home directory: the join is refused on context_path, says why and
// what to do, and creates nothing. A plain directory (no git, no marker)
// below the home directory is still its own room.
func TestJoinRefusesRootAndHome(t *testing.T) {
	e := newEnv(t)
	home := filepath.Join(t.TempDir(), "home")
	notes := filepath.Join(home, "notes")
	if err := os.MkdirAll(filepath.Join(home, ".git"), 0o755); err != nil { // dotfiles kept in git
		t.Fatal(err)
	}
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	home, _ = filepath.EvalSymlinks(home)
	notes = filepath.Join(home, "notes")
	t.Setenv("HOME", home)

	for _, tc := range []struct{ path, why string }{
		{home, home + " is your home directory"},
		{"/", "/ is the filesystem root"},
	} {
		_, err := e.svc.JoinPath(e.ctx, agent("a"), stick.JoinRequest{Path: tc.path})
		se := wantCode(t, err, stick.CodeInvalidArgument)
		if se.Details["field"] != "context_path" || !strings.Contains(se.Message, tc.why) ||
			!strings.Contains(se.Hint, "run inside a git repository, add a marker file (CLAUDE.md, AGENTS.md,") {
			t.Errorf("join %s: %s (hint %q, details %v)", tc.path, se.Message, se.Hint, se.Details)
		}
		_, err = e.svc.JoinPath(e.ctx, agent("a"), stick.JoinRequest{Path: tc.path, ForceNew: true})
		wantCode(t, err, stick.CodeInvalidArgument)
	}
	if rooms, err := e.svc.ListRooms(e.ctx, ""); err != nil || len(rooms) != 0 {
		t.Fatalf("a refused join created a room: %+v %v", rooms, err)
	}

	// The home directory's git is passed over: notes is a room of its own.
	j, err := e.svc.JoinPath(e.ctx, agent("a"), stick.JoinRequest{Path: notes})
	if err != nil || j.CanonicalPath != notes || j.WorkspaceRoot != notes || !j.Created {
		t.Fatalf("join of a plain directory below home: %+v %v", j, err)
	}
}
