package identity_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stickhq/stick/identity"
)

func derive(n int) string { return "codex:" + strconv.Itoa(n) }

// Two claimants of one data directory (as two processes are) never hold
// one id; a released id goes to the next claimant; the lock files are
// owner-only and gone once released.
func TestClaims(t *testing.T) {
	data := t.TempDir()
	a, b := identity.NewClaims(data), identity.NewClaims(data)
	first, err := a.Claim(derive)
	if err != nil {
		t.Fatal(err)
	}
	second, err := b.Claim(derive)
	if err != nil {
		t.Fatal(err)
	}
	third, err := a.Claim(derive) // a second connection of the first process
	if err != nil {
		t.Fatal(err)
	}
	if first.ID != "codex:1" || second.ID != "codex:2" || second.Instance != 2 || third.ID != "codex:3" {
		t.Fatalf("live claims share an id: %s %s %s", first.ID, second.ID, third.ID)
	}
	dir := filepath.Join(data, "instances")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("instances dir: %v %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, _ := e.Info(); fi.Mode().Perm() != 0o600 {
			t.Fatalf("lock file %s mode %v", e.Name(), fi.Mode())
		}
	}
	first.Release()
	first.Release()
	again, err := b.Claim(derive)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != "codex:1" {
		t.Fatalf("a released id goes to the next claimant: %s", again.ID)
	}
	for _, c := range []*identity.Claim{second, third, again} {
		c.Release()
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("released claims leave files behind: %v", entries)
	}

	// Without a data directory, claims still exclude each other in-process.
	mem := identity.NewClaims("")
	x, _ := mem.Claim(derive)
	y, _ := mem.Claim(derive)
	if x.ID == y.ID {
		t.Fatalf("in-process claims share %s", x.ID)
	}
}
