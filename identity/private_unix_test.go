//go:build unix

package identity_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stickhq/stick/identity"
)

// TestRecordsAndClaimsNeverFollowLinks: a members or instances directory
// planted as a link, or a data directory others may write in, is refused,
// and nothing is written through the link.
func TestRecordsAndClaimsNeverFollowLinks(t *testing.T) {
	elsewhere := t.TempDir()
	for _, sub := range []string{"members", "instances"} {
		data := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(data, sub)); err != nil {
			t.Fatal(err)
		}
		err := identity.NewRecords(data).Put(identity.Record{Harness: "h", WorkspaceRoot: "/w", RoomID: "r", AgentID: "a", ReclaimToken: "secret"})
		_, cerr := identity.NewClaims(data).Claim(func(int) string { return "a" })
		if (sub == "members" && err == nil) || (sub == "instances" && cerr == nil) {
			t.Errorf("%s planted as a link was used", sub)
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("written through a link: %v", entries)
	}
	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := identity.NewRecords(open).Put(identity.Record{Harness: "h", WorkspaceRoot: "/w", RoomID: "r", AgentID: "a", ReclaimToken: "secret"}); err == nil {
		t.Error("a record was written in a data directory others may write in")
	}
	if _, err := identity.NewClaims(open).Claim(func(int) string { return "a" }); err == nil {
		t.Error("an id was claimed in a data directory others may write in")
	}
}
