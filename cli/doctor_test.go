package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stickhq/stick/holder"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

func doctor(t *testing.T) (int, map[string][]check) {
	t.Helper()
	code, out, errOut := run(t, "doctor", "--json")
	var checks []check
	if err := json.Unmarshal([]byte(out), &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, out, errOut)
	}
	byName := map[string][]check{}
	for _, c := range checks {
		byName[c.Name] = append(byName[c.Name], c)
	}
	return code, byName
}

func wantCheck(t *testing.T, checks map[string][]check, name, status, msg string) check {
	t.Helper()
	for _, c := range checks[name] {
		if c.Status == status && strings.Contains(c.Message, msg) {
			return c
		}
	}
	t.Fatalf("no %q check %s with %q in %+v", name, status, msg, checks[name])
	return check{}
}

// Every check of doctor --json is ok, warn, fail or skip: nothing else.
func wantStatuses(t *testing.T, checks map[string][]check) {
	t.Helper()
	for _, cs := range checks {
		for _, c := range cs {
			switch c.Status {
			case checkOK, checkWarn, checkFail, checkSkip:
			default:
				t.Fatalf("check %q has status %q", c.Name, c.Status)
			}
			if c.Status == checkWarn || c.Status == checkFail {
				if c.Fix == "" {
					t.Fatalf("check %q is %s without a fix: %+v", c.Name, c.Status, c)
				}
			}
		}
	}
}

func TestDoctor(t *testing.T) {
	repo, data := holderRepo(t)
	m := newMachine(t, "claude", "codex")
	old := executable
	executable = func() (string, error) { return stickBin, nil }
	t.Cleanup(func() { executable = old })
	m.register(t, "codex", stickBin)

	t.Setenv("TALKING_STICK_DATA_DIR", filepath.Join(data, "new"))
	code, checks := doctor(t)
	t.Setenv("TALKING_STICK_DATA_DIR", data)
	if code != 1 {
		t.Fatalf("doctor with claude unregistered: exit %d, want 1", code)
	}
	wantStatuses(t, checks)
	wantCheck(t, checks, "data dir", checkOK, "does not exist yet")
	wantCheck(t, checks, "database", checkOK, "no database yet")
	wantCheck(t, checks, "stick", checkOK, stickBin)
	if c := wantCheck(t, checks, "claude-code", checkFail, "not registered"); c.Fix != "stick install claude-code" {
		t.Fatalf("claude fix = %q", c.Fix)
	}
	wantCheck(t, checks, "codex", checkOK, "stick mcp registered: "+stickBin+" mcp")
	if c := wantCheck(t, checks, "codex", checkWarn, "skill is not installed"); c.Fix != "stick install-skill codex" {
		t.Fatalf("codex skill fix = %q", c.Fix)
	}
	wantCheck(t, checks, "gemini", checkSkip, "not installed")
	wantCheck(t, checks, "opencode", checkSkip, "not installed")

	// A holder killed without a release: the room needs a takeover, and its
	// record is dropped.
	mustRun(t, repo, "wait")
	hs := holders(t, data)
	if len(hs) != 1 {
		t.Fatalf("records = %+v", hs)
	}
	_, checks = doctor(t)
	wantCheck(t, checks, "database", checkOK, fmt.Sprintf("schema %d, integrity ok", store.SchemaVersion))
	wantCheck(t, checks, "search", checkOK, "index ready")
	wantCheck(t, checks, "holder", checkOK, "holds turn 1 in "+repo)
	if err := procid.Signal(hs[0].Guardian, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the holder is gone", func() bool { return procid.Check(hs[0].Guardian) == procid.Gone })
	_, checks = doctor(t)
	if c := wantCheck(t, checks, "room", checkWarn, repo+": owner_gone, takeover open (turn 1"); !strings.HasPrefix(c.Fix, "an active member takes over: stick takeover "+repo) {
		t.Fatalf("room fix = %q", c.Fix)
	}
	wantCheck(t, checks, "holders", checkOK, "dropped 1 record")
	wantStatuses(t, checks)
	if hs, _ := holder.Read(filepath.Join(data, "cli")); len(hs) != 0 {
		t.Fatalf("records after doctor: %+v", hs)
	}

	// Fixed as told, doctor is content.
	mustRun(t, repo, "--agent", "bob", "takeover", "--reason", "the holder was killed")
	mustRun(t, repo, "--agent", "bob", "release", "--status", "s", "--next-action", "n")
	if code, out, errOut := run(t, "install", "--all"); code != 0 {
		t.Fatalf("install --all: %d %s%s", code, out, errOut)
	}
	if code, out, errOut := run(t, "install-skill", "--all"); code != 0 {
		t.Fatalf("install-skill --all: %d %s%s", code, out, errOut)
	}
	code, checks = doctor(t)
	if code != 0 {
		t.Fatalf("doctor after the fixes: exit %d: %+v", code, checks)
	}
	code, out, _ := run(t, "doctor")
	if code != 0 || !strings.Contains(out, "ok    claude-code  stick mcp registered") || strings.Contains(out, "fail") || strings.Contains(out, "warn") {
		t.Fatalf("doctor text:\n%s", out)
	}
}

// A quiet idle room is fine; damaged holder records are rewritten.
func TestDoctorQuietRoomAndDamagedRecords(t *testing.T) {
	repo, data := holderRepo(t)
	newMachine(t)
	old := executable
	executable = func() (string, error) { return stickBin, nil }
	t.Cleanup(func() { executable = old })
	mustRun(t, repo, "join")
	mustRun(t, repo, "policy", "--presence", "200ms", "--heartbeat", "100ms", "--lease", "1s")
	eventually(t, "the room turns dormant", func() bool { return roomState(t, repo).State == stick.StateDormant })
	if err := os.MkdirAll(filepath.Join(data, "cli"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "cli", "holders.json"), []byte(`{"version": 1, "hold`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, repo, nil, "release", "--status", "s", "--next-action", "n"); r.code != 1 || !strings.Contains(r.stderr, "data_dir_unusable: the holder records") || !strings.Contains(r.stderr, "stick doctor") {
		t.Fatalf("release with damaged records: %d %q", r.code, r.stderr)
	}
	code, checks := doctor(t)
	if code != 0 {
		t.Fatalf("doctor on a quiet room: exit %d %+v", code, checks)
	}
	if len(checks["room"]) != 0 {
		t.Fatalf("a quiet room was flagged: %+v", checks["room"])
	}
	wantCheck(t, checks, "holders", checkOK, "rewrote the damaged holder records")
	if _, err := holder.Read(filepath.Join(data, "cli")); err != nil {
		t.Fatalf("records after doctor: %v", err)
	}
}

// A room whose directory is gone and whose holder was killed is abandoned:
// doctor warns (and still exits 0) and names the way out; 'stick rooms
// prune' lists it, --yes closes it keeping its log, and doctor is quiet.
func TestDoctorAbandonedRoomsAndPrune(t *testing.T) {
	_, data := holderRepo(t)
	newMachine(t)
	old := executable
	executable = func() (string, error) { return stickBin, nil }
	t.Cleanup(func() { executable = old })
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(base, "repo")
	if err := os.MkdirAll(filepath.Join(gone, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, gone, "wait")
	hs := holders(t, data)
	if err := procid.Signal(hs[0].Guardian, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the holder is gone", func() bool { return procid.Check(hs[0].Guardian) == procid.Gone })
	room := roomState(t, gone).RoomID
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}

	code, checks := doctor(t)
	wantStatuses(t, checks)
	if code != 0 {
		t.Fatalf("doctor with an abandoned room: exit %d, want 0 (a warning): %+v", code, checks)
	}
	if c := wantCheck(t, checks, "rooms", checkWarn, "1 abandoned"); !strings.Contains(c.Message, gone) || !strings.Contains(c.Fix, "stick rooms prune --yes") {
		t.Fatalf("abandoned check: %+v", c)
	}
	if len(checks["room"]) != 0 {
		t.Fatalf("an abandoned room is also a takeover to do: %+v", checks["room"])
	}

	r := runBin(t, "", nil, "rooms", "prune")
	if r.code != 0 || !strings.Contains(r.stdout, "1 abandoned room(s)") || !strings.Contains(r.stdout, gone) ||
		!strings.Contains(r.stdout, "its path no longer exists") || !strings.Contains(r.stdout, "stick rooms prune --yes") {
		t.Fatalf("rooms prune: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if code, checks = doctor(t); code != 0 || len(checks["rooms"]) != 2 {
		t.Fatalf("a listing changed something: %d %+v", code, checks["rooms"])
	}
	r = runBin(t, "", nil, "rooms", "prune", "--yes", "--json")
	var rep pruneReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || !rep.Closed || len(rep.Rooms) != 1 ||
		rep.Rooms[0].RoomID != room || rep.Rooms[0].Reason != stick.AbandonPathGone || rep.Rooms[0].EventSeq == 0 {
		t.Fatalf("rooms prune --yes --json: %d %v %q %q", r.code, err, r.stdout, r.stderr)
	}
	r = runBin(t, "", nil, "events", "--room", room)
	if r.code != 0 || !strings.Contains(r.stdout, "abandoned: its path no longer exists") {
		t.Fatalf("the pruned room's log: %d %q %q", r.code, r.stdout, r.stderr)
	}
	code, checks = doctor(t)
	if code != 0 || len(checks["rooms"]) != 1 || !strings.Contains(checks["rooms"][0].Message, "0 open, 1 closed") {
		t.Fatalf("doctor after the prune: %d %+v", code, checks["rooms"])
	}
	if r = runBin(t, "", nil, "rooms", "prune"); r.code != 0 || r.stdout != "no abandoned rooms\n" {
		t.Fatalf("rooms prune again: %d %q", r.code, r.stdout)
	}
	if r = runBin(t, "", nil, "rooms", "prune", "--idle", "-1h"); r.code != 2 {
		t.Fatalf("a negative --idle: %d %q", r.code, r.stderr)
	}
}
