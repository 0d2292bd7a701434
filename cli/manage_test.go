package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(context.Background(), LocalWiring(), args, strings.NewReader(stdin), &out, &errb, "test")
	return code, out.String(), errb.String()
}

func TestNotePolicyLeaveClose(t *testing.T) {
	repo := setup(t)
	fakeEnv(t, map[string]string{"USER": "ana"})
	if code, out, _ := run(t, "join", repo); code != 0 {
		t.Fatal(out)
	}
	run(t, "join", repo, "--agent", "codex:1")

	if code, out, _ := run(t, "note", "--path", repo, "CI is red on main"); code != 0 || !strings.Contains(out, "note #3 posted") {
		t.Fatalf("note: %d %q", code, out)
	}
	if code, out, _ := runIn(t, "from stdin\nsecond line\n", "note", "--path", repo, "-", "--json"); code != 0 {
		t.Fatalf("note -: %d %q", code, out)
	} else {
		var res stick.PostResult
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Event.Text != "from stdin\nsecond line" || res.Event.From != "human:ana" {
			t.Fatalf("note - --json: %v %+v", err, res)
		}
	}
	if code, _, errOut := run(t, "note", "--path", repo, "   "); code != 2 || !strings.Contains(errOut, "invalid_argument") {
		t.Fatalf("empty note: %d %q", code, errOut)
	}

	code, out, _ := run(t, "policy", repo)
	if code != 0 || !strings.Contains(out, "lease") || !strings.Contains(out, "45m ") {
		t.Fatalf("policy: %d %q", code, out)
	}
	code, out, _ = run(t, "policy", repo, "--lease", "10m", "--heartbeat", "1m", "--json")
	var p stick.Policy
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil || p.OwnerLeaseTTL != 10*time.Minute || p.HeartbeatInterval != time.Minute {
		t.Fatalf("policy set: %d %v %+v", code, err, p)
	}
	if code, _, errOut := run(t, "policy", repo, "--heartbeat", "2h"); code != 2 || !strings.Contains(errOut, "--heartbeat (2h) must be shorter than --lease (10m)") {
		t.Fatalf("nonsense policy: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "policy", repo, "--lease", "soon"); code != 2 || !strings.Contains(errOut, "invalid argument") {
		t.Fatalf("bad duration: %d %q", code, errOut)
	}

	if code, out, _ := run(t, "leave", repo, "--agent", "codex:1"); code != 0 || !strings.Contains(out, "codex:1 left room") {
		t.Fatalf("leave: %d %q", code, out)
	}
	if code, _, errOut := run(t, "leave", repo, "--agent", "codex:1"); code != 1 || !strings.Contains(errOut, "there is nothing to leave") || strings.Contains(errOut, "stick join") {
		t.Fatalf("leave twice: %d %q", code, errOut)
	}

	conclusion := filepath.Join(t.TempDir(), "NOTES.md")
	if err := os.WriteFile(conclusion, []byte("We shipped v1.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "close", repo, "--yes", "--reason", "shipped", "--conclusion", "@"+conclusion); code != 0 || !strings.Contains(out, "closed room") {
		t.Fatalf("close: %d %q", code, out)
	}
	if code, _, errOut := run(t, "close", repo, "--conclusion", "@/no/such/file"); code != 2 || !strings.Contains(errOut, "cannot read conclusion") {
		t.Fatalf("close with a missing file: %d %q", code, errOut)
	}
	if code, out, _ := runIn(t, "We shipped v1.1.\n", "close", repo, "--conclusion", "-"); code != 0 || !strings.Contains(out, "revised the conclusion") {
		t.Fatalf("closing again revises: %d %q", code, out)
	}
	// The room is closed: commands that change it say so, and how to go on.
	if code, _, errOut := run(t, "note", "--path", repo, "late"); code != 1 || !strings.Contains(errOut, "room_closed: the room at") || !strings.Contains(errOut, "'stick join' starts a new room") {
		t.Fatalf("note after close: %d %q", code, errOut)
	}
	want := "stick: room_closed: the room at " + repo + " is closed\n" +
		"hint: 'stick events', 'stick state' and 'stick doc' still read it; 'stick join' starts a new room here\n"
	if _, _, errOut := run(t, "note", "--path", repo, "late"); errOut != want {
		t.Fatalf("note after close:\n got %q\nwant %q", errOut, want)
	}
}
