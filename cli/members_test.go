package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// A member whose process has exited shows gone in 'stick state', 'stick
// list' and the prompt's count of who is ahead; a person between commands
// shows away; 'stick pass' to the gone member is refused with a hint that
// names the statuses that can receive.
func TestExitedMemberShownGone(t *testing.T) {
	repo, data := holderRepo(t)
	mustRun(t, repo, "join")
	mustRun(t, repo, "wait")
	// A harness's member whose harness then exits.
	harness := testproc.Start(t, "shell", "true")
	id, err := procid.Of(harness.PID())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenDir(data, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.JoinPath(context.Background(), stick.Caller{AgentID: "codex:9b22ce", Kind: stick.KindHarness, Process: id}, stick.JoinRequest{Path: repo})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, repo, "--agent", "gemini:77aa01", "join")
	if err := harness.Kill(); err != nil {
		t.Fatal(err)
	}

	status := map[string]string{}
	for _, m := range roomState(t, repo).Members {
		status[m.AgentID] = m.Status
	}
	if status["codex:9b22ce"] != "gone" || status["gemini:77aa01"] != "away" {
		t.Fatalf("state --json statuses: %v", status)
	}
	text := mustRun(t, repo, "state").stdout
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "codex:9b22ce") && !strings.Contains(line, "gone") {
			t.Fatalf("state shows the exited member as %q\n%s", line, text)
		}
	}
	var rooms []stick.RoomSummary
	if err := json.Unmarshal([]byte(mustRun(t, repo, "list", "--json").stdout), &rooms); err != nil || len(rooms) != 1 ||
		rooms[0].Members != 3 || rooms[0].ActiveMembers != 2 || rooms[0].AwayMembers != 1 {
		t.Fatalf("list --json: %+v %v", rooms, err)
	}
	if r := mustRun(t, repo, "list"); !strings.Contains(r.stdout, "2/3") {
		t.Fatalf("list counts the exited member as active:\n%s", r.stdout)
	}

	// Waiting behind the holder, with only the exited member between.
	gemini := startBin(t, repo, "--agent", "gemini:77aa01", "wait")
	eventually(t, "gemini waits", func() bool {
		r := runBin(t, repo, nil, "--agent", "gemini:77aa01", "status", "--prompt")
		return strings.TrimSpace(r.stdout) == "waiting, 1 ahead"
	})
	gemini.signal(t, os.Interrupt)
	gemini.wait(t)

	r := runBin(t, repo, nil, "pass", "codex:9b22ce", "--status", "s", "--next-action", "n")
	if r.code != 1 || !strings.Contains(r.stderr, "unknown_member") || !strings.Contains(r.stderr, "gone") || !strings.Contains(r.stderr, "active or away") {
		t.Fatalf("pass to the exited member: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mustRun(t, repo, "pass", "gemini:77aa01", "--status", "s", "--next-action", "n")
	if st := roomState(t, repo); st.State != stick.StateReserved || st.ReservedFor != "gemini:77aa01" {
		t.Fatalf("pass to the away person: %s for %s", st.State, st.ReservedFor)
	}
}
