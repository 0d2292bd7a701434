package stick_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// RoomFor finds the deepest open room on a path's chain, compares whole
// directories (pkg2 is not inside pkg), never answers with a named room,
// and falls back to the closed room that changed last only when asked.
func TestRoomFor(t *testing.T) {
	e := newEnv(t)
	pkg, pkg2 := filepath.Join(e.repo, "pkg"), filepath.Join(e.repo, "pkg2")
	deep := filepath.Join(pkg, "x", "y")
	for _, d := range []string{deep, pkg2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ana := agent("ana")
	root := e.join(ana)
	nested, err := e.svc.JoinPath(e.ctx, ana, stick.JoinRequest{Path: pkg, ForceNew: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.JoinPath(e.ctx, ana, stick.JoinRequest{Name: "review"}); err != nil {
		t.Fatal(err)
	}
	roomFor := func(path string, closedToo bool) (string, error) {
		t.Helper()
		r, err := e.svc.RoomFor(e.ctx, path, closedToo)
		return r.RoomID, err
	}
	for path, want := range map[string]string{
		deep: nested.RoomID, pkg: nested.RoomID, pkg2: root.RoomID, e.repo: root.RoomID,
		filepath.Join(pkg, "x", "..", "x"): nested.RoomID,
	} {
		if got, err := roomFor(path, false); err != nil || got != want {
			t.Errorf("RoomFor(%s) = %s, %v; want %s", path, got, err, want)
		}
	}
	r, err := e.svc.RoomFor(e.ctx, deep, false)
	if err != nil || r.CanonicalPath != pkg || r.Members != 1 || r.State != stick.StateIdle {
		t.Fatalf("the summary of the room found: %+v %v", r, err)
	}

	// A closed room below an open one: the open one is the path's.
	if _, err := e.svc.Close(e.ctx, ana, nested.RoomID, "done", ""); err != nil {
		t.Fatal(err)
	}
	if got, err := roomFor(deep, false); err != nil || got != root.RoomID {
		t.Fatalf("below a closed nested room, the open root room: %s %v", got, err)
	}
	// Every room of the chain closed: room_closed, or the one closed last.
	e.clock.Advance(time.Minute)
	if _, err := e.svc.Close(e.ctx, ana, root.RoomID, "done", ""); err != nil {
		t.Fatal(err)
	}
	_, err = roomFor(deep, false)
	se := wantCode(t, err, stick.CodeRoomClosed)
	if se.Message != "the room at "+e.repo+" is closed" || se.Details["room_id"] != root.RoomID || se.Details["path"] != deep || se.Hint == "" {
		t.Fatalf("room_closed: %+v", se)
	}
	if got, err := roomFor(deep, true); err != nil || got != root.RoomID {
		t.Fatalf("closedToo gives the room closed last: %s %v", got, err)
	}
	if got, err := roomFor(pkg2, true); err != nil || got != root.RoomID {
		t.Fatalf("closedToo from a sibling: %s %v", got, err)
	}

	// No room on the chain: room_not_found naming the canonical path.
	other := mkRepo(t)
	_, err = roomFor(filepath.Join(other, "."), true)
	se = wantCode(t, err, stick.CodeRoomNotFound)
	if se.Message != "no room for "+other || se.Details["path"] != other || se.Hint == "" {
		t.Fatalf("room_not_found: %+v", se)
	}
	_, err = roomFor(filepath.Join(other, "missing"), true)
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "context_path" {
		t.Fatalf("a missing path: %+v", se)
	}
}

// RoomFor resolves through the Service's Workspaces: it finds the rooms
// of paths on a disk the service cannot see.
func TestRoomForWorkspaces(t *testing.T) {
	ws := &pinned{}
	e := newEnv(t, stick.WithWorkspaces(ws))
	j, err := e.svc.JoinPath(e.ctx, agent("ana"), stick.JoinRequest{Path: "/remote/api/cmd"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.svc.RoomFor(e.ctx, "/remote/api/cmd/tool", false)
	if err != nil || r.RoomID != j.RoomID || r.RoomKey != "github.com/acme/api" {
		t.Fatalf("RoomFor through the resolver: %+v %v", r, err)
	}
	if ws.calls[len(ws.calls)-1] != "resolve /remote/api/cmd/tool" {
		t.Fatalf("resolver calls: %q", ws.calls)
	}
}
