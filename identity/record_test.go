package identity_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
)

// Records are owner-only, found by harness and workspace, the most recent
// first, replaced per member, and removed when their member leaves.
func TestRecords(t *testing.T) {
	data := t.TempDir()
	r := identity.NewRecords(data)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	put := func(harness, root, room, agent, token string, when time.Time) {
		t.Helper()
		if err := r.Put(identity.Record{Harness: harness, WorkspaceRoot: root, RoomID: room, AgentID: agent, ReclaimToken: token, WrittenAt: when}); err != nil {
			t.Fatal(err)
		}
	}
	put("claude-code", "/w", "room_1", "claude-code:aaaaaa", "rt_a", at)
	put("claude-code", "/w", "room_1", "claude-code:bbbbbb", "rt_b", at.Add(time.Minute))
	put("claude-code", "/other", "room_2", "claude-code:cccccc", "rt_c", at.Add(2*time.Minute))
	put("codex", "/w", "room_1", "codex:dddddd", "rt_d", at.Add(3*time.Minute))
	got, err := r.Find("claude-code", "/w")
	if err != nil || len(got) != 2 || got[0].ReclaimToken != "rt_b" || got[1].ReclaimToken != "rt_a" {
		t.Fatalf("find: %+v %v", got, err)
	}
	put("claude-code", "/w", "room_1", "claude-code:aaaaaa", "rt_a", at.Add(5*time.Minute)) // joined again
	if got, _ := r.Find("claude-code", "/w"); len(got) != 2 || got[0].AgentID != "claude-code:aaaaaa" {
		t.Fatalf("a member's record is replaced, and the most recent comes first: %+v", got)
	}
	err = filepath.Walk(filepath.Join(data, "members"), func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if want := os.FileMode(0o600); fi.IsDir() {
			want = 0o700
			if fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
			}
		} else if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Remove("room_1", "claude-code:aaaaaa"); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Find("claude-code", "/w"); len(got) != 1 || got[0].AgentID != "claude-code:bbbbbb" {
		t.Fatalf("a member that left keeps no record: %+v", got)
	}
	if got, err := identity.NewRecords(t.TempDir()).Find("claude-code", "/w"); got != nil || err != nil {
		t.Fatalf("no records yet: %+v %v", got, err)
	}
}
