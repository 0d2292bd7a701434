package stick_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
)

// Two real clones of one repository, whose origins are written in two URL
// forms, are two rooms on this host (agents in two clones work in
// parallel) with one key, which finds both.
func TestClonesShareAKey(t *testing.T) {
	e := newEnv(t)
	src := testkit.GitSource(t)
	https := testkit.GitClone(t, src, "https://github.com/acme/api.git")
	scp := testkit.GitClone(t, src, "git@github.com:acme/api.git")
	a, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: https})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.svc.JoinPath(e.ctx, agent("bo"), stick.JoinRequest{Path: filepath.Join(scp, "README.md")})
	if err != nil {
		t.Fatal(err)
	}
	if a.RoomID == b.RoomID || !a.Created || !b.Created || a.CanonicalPath != https || b.CanonicalPath != scp {
		t.Fatalf("two clones at two paths must be two rooms: %+v\n%+v", a, b)
	}
	if a.RoomKey != "github.com/acme/api" || b.RoomKey != a.RoomKey || a.RoomName != "" {
		t.Fatalf("keys %q and %q, want github.com/acme/api for both", a.RoomKey, b.RoomKey)
	}
	if a.Room.RoomKey != a.RoomKey || e.state(b.RoomID).RoomKey != b.RoomKey {
		t.Fatalf("the room state shows no key: %+v", a.Room)
	}
	rooms, err := e.svc.RoomsByKey(e.ctx, "github.com/acme/api")
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryIDs(rooms); !slices.Equal(got, []string{a.RoomID, b.RoomID}) {
		t.Fatalf("RoomsByKey = %v, want both clones' rooms %v", got, []string{a.RoomID, b.RoomID})
	}
	// A join in a clone still finds its own room: joins by path are as
	// they were.
	again, err := e.svc.JoinPath(e.ctx, agent("cy"), stick.JoinRequest{Path: scp})
	if err != nil || again.RoomID != b.RoomID || again.Created {
		t.Fatalf("join again: %+v %v", again, err)
	}
	list, err := e.svc.ListRooms(e.ctx, https)
	if err != nil || len(list) != 1 || list[0].RoomID != a.RoomID || list[0].RoomKey != a.RoomKey {
		t.Fatalf("ListRooms(https clone) = %+v %v", list, err)
	}
	// A linked worktree of a clone is a room of its own, with the key of
	// the repository it belongs to.
	wt := filepath.Join(t.TempDir(), "wt")
	testkit.Git(t, https, "worktree", "add", "-q", wt)
	wt, _ = filepath.EvalSymlinks(wt)
	w, err := e.svc.JoinPath(e.ctx, agent("dee"), stick.JoinRequest{Path: wt})
	if err != nil || !w.Created || w.CanonicalPath != wt || w.RoomKey != "github.com/acme/api" {
		t.Fatalf("join in a worktree: %+v %v", w, err)
	}
	if rooms, err := e.svc.RoomsByKey(e.ctx, "github.com/acme/api"); err != nil || len(rooms) != 3 {
		t.Fatalf("RoomsByKey after the worktree joined: %+v %v", summaryIDs(rooms), err)
	}
}

// A nested room's key carries its path inside the repository; a workspace
// without a remote gets a key that says it is local to this host.
func TestNestedAndLocalKeys(t *testing.T) {
	e := newEnv(t)
	src := testkit.GitSource(t)
	clone := testkit.GitClone(t, src, "ssh://git@gitlab.com:22/acme/platform/api.git")
	billing := filepath.Join(clone, "services", "billing")
	if err := os.MkdirAll(billing, 0o755); err != nil {
		t.Fatal(err)
	}
	top, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: billing})
	if err != nil || top.CanonicalPath != clone || top.RoomKey != "gitlab.com/acme/platform/api" {
		t.Fatalf("join below the top level: %+v %v", top, err)
	}
	nested, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: billing, ForceNew: true})
	if err != nil || nested.CanonicalPath != billing || nested.RoomKey != "gitlab.com/acme/platform/api/-/services/billing" {
		t.Fatalf("nested room: %+v %v", nested, err)
	}
	// The deepest room still wins for a path below it.
	deep := filepath.Join(billing, "internal")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if j, err := e.svc.JoinPath(e.ctx, agent("bo"), stick.JoinRequest{Path: deep}); err != nil || j.RoomID != nested.RoomID {
		t.Fatalf("join below the nested room: %+v %v", j, err)
	}

	bare := testkit.GitClone(t, src, "")
	local, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: bare})
	if err != nil {
		t.Fatal(err)
	}
	if !workspace.IsLocalKey(local.RoomKey) || !strings.HasSuffix(local.RoomKey, ":"+bare) {
		t.Fatalf("a clone without origin has key %q, want a local key of %s", local.RoomKey, bare)
	}
	if rooms, err := e.svc.RoomsByKey(e.ctx, local.RoomKey); err != nil || len(rooms) != 1 || rooms[0].RoomID != local.RoomID {
		t.Fatalf("RoomsByKey(local key) = %+v %v", rooms, err)
	}
	for _, key := range []string{"", strings.Repeat("k", workspace.MaxKeyLen+1)} {
		se := wantCode(t, func() error { _, err := e.svc.RoomsByKey(e.ctx, key); return err }(), stick.CodeInvalidArgument)
		if se.Details["field"] != "room_key" {
			t.Errorf("RoomsByKey(%d bytes): %+v", len(key), se)
		}
	}
}

// Rooms created and joined by a name: joining the name of an open room
// joins it, from anywhere; the name is listed, read, searched, exported
// and closed like any room, and once closed it may name a new room.
func TestNamedRoomsThroughTheLibrary(t *testing.T) {
	e := newEnv(t)
	ana, bo := agent("ana"), agent("bo")
	first, err := e.svc.JoinPath(e.ctx, ana, stick.JoinRequest{Name: "release-1.4-review"})
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || !first.NewMember || first.RoomName != "release-1.4-review" || first.CanonicalPath != "" ||
		first.RoomKey != "" || first.Room.RoomName != "release-1.4-review" || first.ReclaimToken == "" {
		t.Fatalf("first join by name: %+v", first)
	}
	second, err := e.svc.JoinPath(e.ctx, bo, stick.JoinRequest{Name: "release-1.4-review"})
	if err != nil || second.RoomID != first.RoomID || second.Created || len(second.Room.Members) != 2 {
		t.Fatalf("second join by name: %+v %v", second, err)
	}
	// A room of a path is another room, and both are listed there.
	atRepo := e.join(ana)
	list, err := e.svc.ListRooms(e.ctx, e.repo)
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryIDs(list); !slices.Equal(got, []string{atRepo.RoomID, first.RoomID}) || list[1].RoomName != "release-1.4-review" {
		t.Fatalf("ListRooms(repo) = %+v, want the repo's room, then the named room", list)
	}
	found, err := e.svc.RoomNamed(e.ctx, "release-1.4-review")
	if err != nil || found.RoomID != first.RoomID || found.Members != 2 {
		t.Fatalf("RoomNamed: %+v %v", found, err)
	}
	// Taking turns, notes, search and the transcript work as anywhere.
	l := e.claim(ana, first.RoomID)
	e.release(ana, l.Lease(), "checked the changelog")
	if _, err := e.svc.AppendNote(e.ctx, bo, first.RoomID, "the migration notes are missing"); err != nil {
		t.Fatal(err)
	}
	hits, err := e.svc.Search(e.ctx, stick.SearchQuery{Query: "migration", RoomID: first.RoomID})
	if err != nil || len(hits) != 1 || hits[0].RoomID != first.RoomID {
		t.Fatalf("search in the named room: %+v %v", hits, err)
	}
	tr, err := e.svc.Transcript(e.ctx, first.RoomID, 0)
	if err != nil || tr.Room.RoomName != "release-1.4-review" || len(tr.Events) == 0 {
		t.Fatalf("transcript: %+v %v", tr.Room, err)
	}
	if _, err := e.svc.Close(e.ctx, ana, first.RoomID, "reviewed", "ship it"); err != nil {
		t.Fatal(err)
	}
	if found, err := e.svc.RoomNamed(e.ctx, "release-1.4-review"); err != nil || found.RoomID != first.RoomID || found.State != stick.StateClosed {
		t.Fatalf("RoomNamed of a closed room: %+v %v", found, err)
	}
	list, _ = e.svc.ListRooms(e.ctx, e.repo)
	if got := summaryIDs(list); !slices.Equal(got, []string{atRepo.RoomID}) {
		t.Fatalf("a closed named room is listed with a path: %v", got)
	}
	// The name is free again: the next join starts a new room.
	next, err := e.svc.JoinPath(e.ctx, bo, stick.JoinRequest{Name: "release-1.4-review"})
	if err != nil || !next.Created || next.RoomID == first.RoomID {
		t.Fatalf("join by the name of a closed room: %+v %v", next, err)
	}
	if found, err := e.svc.RoomNamed(e.ctx, "release-1.4-review"); err != nil || found.RoomID != next.RoomID {
		t.Fatalf("RoomNamed prefers the open room: %+v %v", found, err)
	}
	all, err := e.svc.ListRooms(e.ctx, "")
	if err != nil || len(all) != 3 {
		t.Fatalf("ListRooms(\"\") = %+v %v, want every room, named ones too", all, err)
	}
	wantCode(t, func() error { _, err := e.svc.RoomNamed(e.ctx, "nobody"); return err }(), stick.CodeRoomNotFound)
}

// Room names follow one rule, and a join gives a path or a name.
func TestRoomNameRule(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"a", "release-1.4-review", "team_2", "0day", strings.Repeat("x", 64)} {
		if !stick.ValidRoomName(name) {
			t.Errorf("%q is refused", name)
		}
		if _, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Name: name}); err != nil {
			t.Errorf("join %q: %v", name, err)
		}
	}
	for name, hint := range map[string]string{
		"Release":                "release",
		"-x":                     "release-1.4-review",
		".x":                     "release-1.4-review",
		"a b":                    "release-1.4-review",
		"a/b":                    "release-1.4-review",
		"room_1":                 "release-1.4-review",
		"été":                    "release-1.4-review",
		strings.Repeat("x", 65):  "",
		strings.Repeat("x", 500): "",
	} {
		if stick.ValidRoomName(name) {
			t.Errorf("%q is accepted", name)
		}
		se := wantCode(t, func() error { _, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Name: name}); return err }(), stick.CodeInvalidArgument)
		if se.Details["field"] != "name" || !strings.Contains(se.Hint, hint) {
			t.Errorf("join %q: %+v", name, se)
		}
		if len(name) <= 64 && !strings.Contains(se.Message, "lower-case letters, digits") {
			t.Errorf("join %q: the message does not state the rule: %s", name, se.Message)
		}
	}
	for field, req := range map[string]stick.JoinRequest{
		"name":         {Name: "x", Path: e.repo},
		"force_new":    {Name: "x", ForceNew: true},
		"context_path": {},
	} {
		se := wantCode(t, func() error { _, err := e.svc.JoinPath(e.ctx, agent("ana"), req); return err }(), stick.CodeInvalidArgument)
		if se.Details["field"] != field {
			t.Errorf("%+v: %+v", req, se)
		}
		if field == "context_path" && (!strings.Contains(se.Message, "context_path") || !strings.Contains(se.Message, "name")) {
			t.Errorf("a join with neither a path nor a name says %q; it must offer both", se.Message)
		}
	}
}

// pinned is a Workspaces that never looks at a disk: it knows one
// workspace, at /remote/api, below which every path exists.
type pinned struct{ calls []string }

func (p *pinned) Resolve(path string) (workspace.Resolution, error) {
	p.calls = append(p.calls, "resolve "+path)
	if path != "/remote/api" && !strings.HasPrefix(path, "/remote/api/") {
		return workspace.Resolution{}, fmt.Errorf("%w: %w", workspace.ErrNotFound, fs.ErrNotExist)
	}
	return workspace.Resolution{Path: path, Choice: workspace.Choice{Root: "/remote/api", How: workspace.HowGit}}, nil
}

func (p *pinned) Refusal(dir string) string {
	p.calls = append(p.calls, "refusal "+dir)
	return ""
}

func (p *pinned) Key(dir string) string {
	p.calls = append(p.calls, "key "+dir)
	return workspace.RepoKey("github.com/acme/api", strings.TrimPrefix(strings.TrimPrefix(dir, "/remote/api"), "/"))
}

// A Service resolves paths only through its Workspaces, so a server can
// resolve the paths of clients whose disks it cannot see.
func TestWithWorkspaces(t *testing.T) {
	ws := &pinned{}
	e := newEnv(t, stick.WithWorkspaces(ws))
	j, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: "/remote/api/cmd"})
	if err != nil || j.CanonicalPath != "/remote/api" || j.RoomKey != "github.com/acme/api" || j.RequestedPath != "/remote/api/cmd" {
		t.Fatalf("join through the resolver: %+v %v", j, err)
	}
	nested, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: "/remote/api/cmd", ForceNew: true})
	if err != nil || nested.CanonicalPath != "/remote/api/cmd" || nested.RoomKey != "github.com/acme/api/-/cmd" {
		t.Fatalf("nested join through the resolver: %+v %v", nested, err)
	}
	list, err := e.svc.ListRooms(e.ctx, "/remote/api/cmd")
	if got := summaryIDs(list); err != nil || !slices.Equal(got, []string{nested.RoomID, j.RoomID}) {
		t.Fatalf("ListRooms through the resolver: %v %v", got, err)
	}
	want := []string{"resolve /remote/api/cmd", "key /remote/api", "resolve /remote/api/cmd", "refusal /remote/api/cmd", "key /remote/api/cmd", "resolve /remote/api/cmd"}
	if !slices.Equal(ws.calls, want) {
		t.Fatalf("resolver calls:\n got %q\nwant %q", ws.calls, want)
	}
	_, err = e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: e.repo})
	if se := wantCode(t, err, stick.CodeInvalidArgument); !errors.Is(err, fs.ErrNotExist) && !strings.Contains(se.Message, "does not exist") {
		t.Fatalf("a path the resolver does not know: %+v", se)
	}
	// Whether a room's directory is gone is the resolver's to say too:
	// /remote/api exists for it, though not on this host's disk. (Its
	// member's presence has lapsed, so only the path keeps it.)
	e.clock.Advance(5 * time.Hour)
	ws.calls = nil
	abandoned, err := e.svc.AbandonedRooms(e.ctx, 0)
	if err != nil || len(abandoned) != 0 {
		t.Fatalf("rooms at paths the resolver knows are abandoned: %+v %v", abandoned, err)
	}
	if !slices.Contains(ws.calls, "resolve /remote/api") || !slices.Contains(ws.calls, "resolve /remote/api/cmd") {
		t.Fatalf("AbandonedRooms did not ask the resolver whether the rooms' paths exist: %q", ws.calls)
	}
}

func summaryIDs(rooms []stick.RoomSummary) []string {
	var out []string
	for _, r := range rooms {
		out = append(out, r.RoomID)
	}
	return out
}
