package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
)

// Named rooms through the commands: created and joined with join --name,
// listed beside the rooms of a path, read, searched and closed with --room
// NAME, and the name free for a new room once closed.
func TestGoldenNamed(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	s.join("human:ana", s.repo, false)
	tr.run("", "join", "--name", "release-1.4-review")
	s.clock.Advance(time.Minute)
	tr.run("", "join", "--name", "release-1.4-review", "--agent", "codex:1")
	tr.table("list", s.repo)
	tr.run("", "state", "--room", "release-1.4-review")
	tr.run("", "note", "--path", s.repo, "checked the changelog")
	tr.run("", "close", "--room", "release-1.4-review", "--yes", "--reason", "reviewed", "--conclusion", "Ship 1.4.")
	tr.run("", "search", "ship", "--room", "release-1.4-review")
	tr.table("list", s.repo)
	tr.table("list", "--all")
	tr.run("", "export", "--room", "release-1.4-review")
	tr.run("", "join", "--name", "release-1.4-review")
	tr.run("", "join", "--name", "Release-1.4")
	tr.run("", "join", s.repo, "--name", "review")
	tr.run("", "join", "--name", "review", "--force-new")
	tr.check("named")
}

// The rooms of two clones of one repository, one with its origin written
// as an https URL and one in git's scp-like form, are two rooms with one
// key, which join, state and list show.
func TestGoldenKeys(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	src := testkit.GitSource(t)
	a := testkit.GitClone(t, src, "https://ana:s3cret@github.com/acme/api.git")
	b := testkit.GitClone(t, src, "git@github.com:acme/api.git")
	s.name(a, "<clone-a>")
	s.name(b, "<clone-b>")
	tr.run("", "join", a)
	tr.run("", "join", b)
	tr.run("", "state", b)
	tr.table("list", "--all")
	tr.check("keys")
	if strings.Contains(tr.b.String(), "s3cret") {
		t.Fatal("a credential in a remote URL was shown")
	}
}

// --json carries every room's key in full and every name.
func TestJSONListKeysAndNames(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	var j stick.JoinResult
	s.decodeJSON(&j, "join", "--name", "triage")
	if j.RoomName != "triage" || j.CanonicalPath != "" || j.RoomKey != "" || !j.Created {
		t.Fatalf("join --name --json: %+v", j)
	}
	var rooms []map[string]any
	s.decodeJSON(&rooms, "list", s.repo)
	if len(rooms) != 2 {
		t.Fatalf("list --json: %v", rooms)
	}
	if key, _ := rooms[0]["room_key"].(string); !strings.HasPrefix(key, "local:") || !strings.HasSuffix(key, ":"+s.repo) || rooms[0]["room_name"] != nil {
		t.Errorf("the repo's room in list --json: %v", rooms[0])
	}
	if rooms[1]["room_name"] != "triage" || rooms[1]["room_key"] != nil || rooms[1]["canonical_path"] != "" {
		t.Errorf("the named room in list --json: %v", rooms[1])
	}
	var st stick.RoomStatus
	s.decodeJSON(&st, "state", "--room", "triage")
	if st.RoomID != j.RoomID || st.RoomName != "triage" {
		t.Errorf("state --room triage --json: %+v", st)
	}
}
