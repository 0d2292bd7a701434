//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritePrivateReplacesLinks: stick's own files are written owner-only
// whatever the old file's mode, and a link at the path is replaced, its
// target left alone.
func TestWritePrivateReplacesLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), ".bashrc")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "holders.json")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivate(path, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Fatalf("written through the link: %q", b)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v, want a regular 0600 file", fi.Mode(), err)
	}
}

// TestWriteFileRefusals: WriteFile refuses a dangling link, a read-only
// file and (as root) a link or file of another user, and changes nothing.
func TestWriteFileRefusals(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink(filepath.Join(dir, "nowhere.json"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dangling, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("dangling link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.json")); !os.IsNotExist(err) {
		t.Errorf("created through a dangling link: %v", err)
	}
	ro := filepath.Join(dir, "ro.json")
	if err := os.WriteFile(ro, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(ro, []byte("new"), 0o644); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("read-only file: %v", err)
	}
	if b, _ := os.ReadFile(ro); string(b) != "old" {
		t.Errorf("read-only file rewritten: %q", b)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to make files owned by another user (uid 65534)")
	}
	theirs := filepath.Join(dir, "theirs.json")
	if err := os.WriteFile(theirs, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "mine.json")
	if err := os.WriteFile(mine, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	linkToTheirs := filepath.Join(dir, "link-to-theirs.json")
	theirLink := filepath.Join(dir, "their-link.json")
	if err := os.Symlink(theirs, linkToTheirs); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mine, theirLink); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(theirLink, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{theirs, linkToTheirs, theirLink} {
		if err := WriteFile(p, []byte("new"), 0o644); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	for _, p := range []string{theirs, mine} {
		if b, _ := os.ReadFile(p); string(b) != "old" {
			t.Errorf("%s rewritten: %q", filepath.Base(p), b)
		}
	}
}
