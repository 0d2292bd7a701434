package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// namedState is the state of the room named name, read with --room.
func namedState(t *testing.T, dir, name string) stick.RoomStatus {
	t.Helper()
	var st stick.RoomStatus
	if err := json.Unmarshal([]byte(mustRun(t, dir, "state", "--room", name, "--json").stdout), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// wantOut fails the test unless out has every one of want.
func wantOut(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Fatalf("%s lacks %q:\n%s", what, w, out)
		}
	}
}

// Turns in a named room from the command line, with real holder
// processes: a room made by 'join --name', a second member joined by its
// name from another directory, a wait that leaves a holder recorded with
// the room's name, a note, a release that reserves the stick for the
// other member, that member's try reading the handoff, a pass back, and
// the log showing it all in order.
func TestNamedRoomTurns(t *testing.T) {
	repo, data := holderRepo(t)
	elsewhere := t.TempDir() // bob works from a directory of no workspace
	const name = "release-1.4-review"
	var j stick.JoinResult
	if err := json.Unmarshal([]byte(mustRun(t, repo, "join", "--name", name, "--json").stdout), &j); err != nil || !j.Created || j.RoomName != name {
		t.Fatalf("join --name: %v %+v", err, j)
	}
	ana := j.AgentID
	mustRun(t, elsewhere, "--agent", "bob", "join", "--name", name)

	r := mustRun(t, repo, "wait", "--room", name)
	wantOut(t, "wait --room", r.stdout, "your turn: room "+j.RoomID+" named "+name+", turn 1", "no handoff: this is the room's first turn",
		"when you are done: stick release --room "+name+" --status")
	hs := holders(t, data)
	if len(hs) != 1 || hs[0].RoomID != j.RoomID || hs[0].Name != name || hs[0].Path != "" || hs[0].State != holder.Holding || hs[0].Lease.TurnID != 1 {
		t.Fatalf("holder records = %+v, want one holding turn 1 of the named room", hs)
	}
	guardian := hs[0].Guardian
	if st := namedState(t, repo, name); st.State != stick.StateOwned || st.Owner != ana {
		t.Fatalf("the named room while ana waits: %s, owner %q", st.State, st.Owner)
	}
	if r := mustRun(t, repo, "wait", "--room", name); !strings.Contains(r.stdout, "you already hold the stick in the room named "+name+" (turn 1)") {
		t.Fatalf("a second wait of the holder:\n%s", r.stdout)
	}
	if r := mustRun(t, elsewhere, "--agent", ana, "status", "--room", name); r.stdout != ana+" in the room named "+name+": holding T1\n" {
		t.Fatalf("status --room: %q", r.stdout)
	}
	mustRun(t, repo, "heartbeat", "--room", name)
	wantOut(t, "note --room", mustRun(t, repo, "note", "--room", name, "checked the changelog").stdout, "posted to room "+j.RoomID)

	r = mustRun(t, repo, "release", "--room", name, "--status", "changelog checked", "--next-action", "bob: tag 1.4",
		"--artifact", "CHANGELOG.md:1-5=review")
	wantOut(t, "release --room", r.stdout, "released turn 1 in the room named "+name, "the stick is reserved for bob",
		"run 'stick wait --room "+name+"' to queue for your next turn")
	if procid.Check(guardian) != procid.Gone {
		t.Fatal("the holder still runs after the release")
	}
	if hs := holders(t, data); len(hs) != 0 {
		t.Fatalf("records left after the release: %+v", hs)
	}
	st := namedState(t, repo, name)
	if st.State != stick.StateReserved || st.ReservedFor != "bob" || st.PendingHandoff == nil {
		t.Fatalf("after the release: %s, reserved for %q", st.State, st.ReservedFor)
	}
	// Relative artifact paths are stored relative to the workspace of the
	// current directory, as members in other clones read them.
	if a := st.PendingHandoff.Handoff.Artifacts; len(a) != 1 || a[0].Path != "CHANGELOG.md" {
		t.Fatalf("the handoff's artifacts: %+v", a)
	}

	r = mustRun(t, elsewhere, "--agent", "bob", "try", "--room", name)
	wantOut(t, "bob's try --room", r.stdout, "your turn: room "+j.RoomID+" named "+name+", turn 2", "handoff from "+ana,
		"changelog checked", "bob: tag 1.4", "CHANGELOG.md:1-5", "stick release --agent bob --room "+name)
	if hs := holders(t, data); len(hs) != 1 || hs[0].AgentID != "bob" || hs[0].Name != name || hs[0].State != holder.Holding {
		t.Fatalf("records after bob's try: %+v", hs)
	}
	r = mustRun(t, elsewhere, "--agent", "bob", "pass", ana, "--room", name, "--status", "tagged 1.4", "--next-action", "announce it")
	wantOut(t, "bob's pass --room", r.stdout, "passed turn 2 in the room named "+name, "the stick is reserved for "+ana)
	if hs := holders(t, data); len(hs) != 0 {
		t.Fatalf("records after bob's pass: %+v", hs)
	}

	out := mustRun(t, elsewhere, "events", "--room", name).stdout
	last := -1
	for _, want := range []string{"join     " + ana, "join     bob", "claim    " + ana, "note     " + ana + ": checked the changelog",
		"release  " + ana + " -> bob", "status: changelog checked", "claim    bob", "pass     bob -> " + ana, "status: tagged 1.4"} {
		i := strings.Index(out, want)
		if i <= last {
			t.Fatalf("events --room: %q missing or out of order:\n%s", want, out)
		}
		last = i
	}
}

// 'stick hold --room' holds the stick of a named room in the foreground
// and releases it at Ctrl-C.
func TestHoldInANamedRoom(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "join", "--name", "triage")
	hold := startBin(t, t.TempDir(), "hold", "--room", "triage", "--status", "triaged", "--next-action", "fix the first")
	hold.readUntil(t, "your turn")
	if hs := holders(t, data); len(hs) != 1 || hs[0].Name != "triage" || hs[0].Guardian.PID != hold.cmd.Process.Pid {
		t.Fatalf("records = %+v, want the hold process in the room named triage", hs)
	}
	hold.signal(t, os.Interrupt)
	if code := hold.wait(t); code != 0 {
		t.Fatalf("hold after Ctrl-C: exit %d\n%s", code, hold.stderr.String())
	}
	wantOut(t, "hold --room", hold.stdout.String(), "waiting for the stick in the room named triage")
	if st := namedState(t, repo, "triage"); st.State != stick.StateIdle || st.PendingHandoff == nil || st.PendingHandoff.Handoff.Status != "triaged" {
		t.Fatalf("after hold: %s %+v", st.State, st.PendingHandoff)
	}
}

// --room with a path argument (or with --path) is a usage error; --room
// naming no room is room_not_found, and creates none; a closed named room
// is room_closed. Nothing changes in any of them.
func TestNamedRoomTurnErrors(t *testing.T) {
	repo, data := holderRepo(t)
	const name = "release-1.4-review"
	mustRun(t, repo, "join", "--name", name)
	both := "stick: give either a path or --room, not both (--room " + name + " already names the room)"
	for _, args := range [][]string{
		{"wait", repo}, {"try", repo}, {"hold", repo}, {"takeover", repo, "--reason", "r"}, {"heartbeat", repo},
		{"release", repo, "--status", "s", "--next-action", "n"}, {"pass", "bob", repo, "--status", "s", "--next-action", "n"},
		{"sync", repo}, {"policy", repo}, {"leave", repo}, {"status", repo}, {"doc", "edit", repo},
	} {
		args = append(args, "--room", name)
		cmd := args[0]
		if cmd == "doc" {
			cmd = "doc edit"
		}
		checkFailure(t, strings.Join(args, " "), runBin(t, repo, nil, args...), 2, both, usage(cmd))
	}
	for _, args := range [][]string{{"note", "hello"}, {"doc", "append", "hello"}} {
		args = append(args, "--path", repo, "--room", name)
		cmd := strings.Join(args[:len(args)-5], " ")
		checkFailure(t, strings.Join(args, " "), runBin(t, repo, nil, args...), 2,
			"stick: give either --path or --room, not both (--room "+name+" already names the room)", usage(cmd))
	}

	hint := "'stick join --name no-such-room' creates the room of that name; 'stick list' shows the open named rooms, 'stick list --all' the closed ones too"
	for _, args := range [][]string{
		{"wait"}, {"try"}, {"hold"}, {"takeover", "--reason", "r"}, {"release", "--status", "s", "--next-action", "n"},
		{"pass", "bob", "--status", "s", "--next-action", "n"}, {"heartbeat"}, {"note", "hello"}, {"sync"}, {"policy"}, {"leave"},
		{"doc", "append", "hello"}, {"status"},
	} {
		args = append(args, "--room", "no-such-room")
		checkFailure(t, strings.Join(args, " "), runBin(t, repo, nil, args...), 1, "stick: room_not_found: no room is named no-such-room", hint)
	}
	if out := mustRun(t, repo, "list", "--all").stdout; strings.Contains(out, "no-such-room") {
		t.Fatalf("a command with --room of an unknown name made a room:\n%s", out)
	}
	if hs := holders(t, data); len(hs) != 0 {
		t.Fatalf("holders after the refused commands: %+v", hs)
	}

	st := namedState(t, repo, name)
	mustRun(t, repo, "close", "--room", name, "--yes", "--reason", "reviewed")
	closed := fmt.Sprintf("stick: room_closed: the room named %s (%s) is closed", name, st.RoomID)
	closedHint := fmt.Sprintf("'stick events --room %s' and 'stick doc --room %s' still read it; 'stick join --name %s' starts a new room of that name", name, name, name)
	for _, args := range [][]string{
		{"wait"}, {"try"}, {"hold"}, {"takeover", "--reason", "r"}, {"release", "--status", "s", "--next-action", "n"},
		{"pass", "bob", "--status", "s", "--next-action", "n"}, {"heartbeat"}, {"note", "hello"}, {"policy"}, {"leave"},
		{"doc", "append", "hello"},
	} {
		args = append(args, "--room", name)
		checkFailure(t, strings.Join(args, " "), runBin(t, repo, nil, args...), 1, closed, closedHint)
	}
	if out := mustRun(t, repo, "list", "--all", "--json").stdout; strings.Count(out, `"room_name": "`+name+`"`) != 1 {
		t.Fatalf("a command in the closed named room started a new one:\n%s", out)
	}
}

// The other commands that act in a room reach a named room by --room too,
// and a room of a path by its id.
func TestNamedRoomOtherCommands(t *testing.T) {
	repo, data := holderRepo(t)
	const name = "triage"
	mustRun(t, repo, "join", "--name", name)
	mustRun(t, repo, "--agent", "bob", "join", "--name", name)
	wantOut(t, "doc append --room", mustRun(t, repo, "doc", "append", "--room", name, "--section", "Decisions", "ship it").stdout, "now version 1")
	if out := mustRun(t, repo, "doc", "--room", name).stdout; out != "## Decisions\n\nship it\n" {
		t.Fatalf("the named room's document: %q", out)
	}
	wantOut(t, "policy --room", mustRun(t, repo, "policy", "--room", name, "--lease", "10m").stdout, "lease      10m")
	wantOut(t, "bob's sync --room", mustRun(t, repo, "--agent", "bob", "sync", "--room", name).stdout, "doc      ", "policy   ")
	wantOut(t, "leave --room", mustRun(t, repo, "--agent", "bob", "leave", "--room", name).stdout, "bob left room")
	r := runBin(t, repo, nil, "--agent", "carl", "note", "--room", name, "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "hint: run 'stick join --agent carl --name triage' first") {
		t.Fatalf("a note by a non-member of the named room: %d %q", r.code, r.stderr)
	}

	// A room of a path, by its id: the holder joins it by its path.
	var j stick.JoinResult
	if err := json.Unmarshal([]byte(mustRun(t, repo, "join", "--json").stdout), &j); err != nil {
		t.Fatal(err)
	}
	wantOut(t, "wait --room ID", mustRun(t, t.TempDir(), "wait", "--room", j.RoomID).stdout, "your turn: room "+j.RoomID+" at "+repo+", turn 1")
	if hs := holders(t, data); len(hs) != 1 || hs[0].RoomID != j.RoomID || hs[0].Path != repo || hs[0].Name != "" {
		t.Fatalf("records after wait --room ID: %+v", hs)
	}
	wantOut(t, "release --room ID", mustRun(t, t.TempDir(), "release", "--room", j.RoomID, "--status", "s", "--next-action", "n").stdout,
		"released turn 1 in "+repo)
	if hs := holders(t, data); len(hs) != 0 {
		t.Fatalf("records after release --room ID: %+v", hs)
	}
}
