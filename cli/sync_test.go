package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestSyncCommand: 'stick sync' shows what is new for this identity, keeps
// its cursor between runs, pages, replays with --reset, and refuses --ack
// without --no-advance as a usage error.
func TestSyncCommand(t *testing.T) {
	repo := setup(t)
	fakeEnv(t, map[string]string{"USER": "ana"})
	if code, out, _ := run(t, "join", repo); code != 0 {
		t.Fatal(out)
	}
	run(t, "join", repo, "--agent", "codex:1")
	run(t, "note", "--path", repo, "--agent", "codex:1", "--type", "question", "keep the old flag?")
	run(t, "note", "--path", repo, "--agent", "codex:1", "second")

	code, out, _ := run(t, "sync", repo, "--max", "2")
	if code != 0 || !strings.Contains(out, "join     codex:1") || !strings.Contains(out, "(question): keep the old flag?") ||
		!strings.Contains(out, "more: run 'stick sync' again") {
		t.Fatalf("first page: %d %q", code, out)
	}
	if code, out, _ := run(t, "sync", repo); code != 0 || !strings.Contains(out, "second") || strings.Contains(out, "question") {
		t.Fatalf("second page: %d %q", code, out)
	}
	if code, out, _ := run(t, "sync", repo); code != 0 || !strings.HasPrefix(out, "nothing new (cursor ") {
		t.Fatalf("nothing new: %d %q", code, out)
	}
	code, out, _ = run(t, "sync", repo, "--reset", "--json")
	var res stick.SyncResult
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res.Received) != 3 || res.Status != "ready" {
		t.Fatalf("--reset --json: %d %v %+v", code, err, res)
	}
	for _, ev := range res.Received {
		if ev.From == "human:ana" {
			t.Fatalf("own event without --include-self: %+v", ev)
		}
	}
	if code, _, errOut := run(t, "sync", repo, "--ack", "2"); code != 2 || !strings.Contains(errOut, "--no-advance") {
		t.Fatalf("--ack alone: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "sync", repo, "--no-advance", "--ack", "999"); code != 2 || !strings.Contains(errOut, "--ack 999 is past") {
		t.Fatalf("--ack past the log: %d %q", code, errOut)
	}
}
