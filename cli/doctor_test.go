package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	wantCheck(t, checks, "data dir", checkNote, "does not exist yet")
	wantCheck(t, checks, "database", checkNote, "no database yet")
	wantCheck(t, checks, "stick", checkOK, stickBin)
	if c := wantCheck(t, checks, "claude-code", checkFix, "not registered"); c.Fix != "stick install claude-code" {
		t.Fatalf("claude fix = %q", c.Fix)
	}
	wantCheck(t, checks, "codex", checkOK, "stick mcp registered: "+stickBin+" mcp")
	if c := wantCheck(t, checks, "codex", checkFix, "skill is not installed"); c.Fix != "stick install-skill codex" {
		t.Fatalf("codex skill fix = %q", c.Fix)
	}
	wantCheck(t, checks, "gemini", checkNote, "not installed")
	wantCheck(t, checks, "opencode", checkNote, "not installed")

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
	if c := wantCheck(t, checks, "room", checkFix, repo+": owner_gone, takeover open (turn 1"); !strings.HasPrefix(c.Fix, "an active member takes over: stick takeover "+repo) {
		t.Fatalf("room fix = %q", c.Fix)
	}
	wantCheck(t, checks, "holders", checkOK, "dropped 1 record")
	if hs, _ := readHolders(filepath.Join(data, "cli")); len(hs) != 0 {
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
	if code != 0 || !strings.Contains(out, "ok   claude-code  stick mcp registered") || strings.Contains(out, "fix") {
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
	if _, err := readHolders(filepath.Join(data, "cli")); err != nil {
		t.Fatalf("records after doctor: %v", err)
	}
}
