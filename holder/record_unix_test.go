//go:build unix

package holder

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// TestHolderRecordsNeverFollowLinks: links planted in the CLI's directory
// (holders.json to the user's ~/.bashrc, holders.lock, the directory
// itself) are never written through; a data directory others may write
// in is refused with data_dir_unusable.
func TestHolderRecordsNeverFollowLinks(t *testing.T) {
	setup := func(t *testing.T) (dir, victim string) {
		data := t.TempDir()
		t.Setenv(store.DataDirEnv, data)
		victim = filepath.Join(t.TempDir(), ".bashrc")
		if err := os.WriteFile(victim, []byte("export PATH=/usr/bin\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		dir, err := Dir()
		if err != nil {
			t.Fatal(err)
		}
		return dir, victim
	}
	untouched := func(t *testing.T, victim string) {
		t.Helper()
		if b, _ := os.ReadFile(victim); string(b) != "export PATH=/usr/bin\n" {
			t.Fatalf("written through a link: %q", b)
		}
	}
	t.Run("holders.json", func(t *testing.T) {
		dir, victim := setup(t)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(dir, "holders.json")); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(dir); stick.ErrorCode(err) != stick.CodeDataDir {
			t.Errorf("reading through a link: %v, want data_dir_unusable", err)
		}
		if err := Drop(dir, procid.Identity{PID: 1}); err != nil {
			t.Fatal(err)
		}
		untouched(t, victim)
		fi, err := os.Lstat(filepath.Join(dir, "holders.json"))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Fatalf("holders.json: %v %v, want a regular owner-only file in place of the link", fi.Mode(), err)
		}
	})
	t.Run("holders.lock", func(t *testing.T) {
		dir, victim := setup(t)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(dir, "holders.lock")); err != nil {
			t.Fatal(err)
		}
		if err := Drop(dir, procid.Identity{PID: 1}); err == nil {
			t.Fatal("a lock file planted as a link was opened")
		}
		untouched(t, victim)
	})
	t.Run("cli directory", func(t *testing.T) {
		dir, victim := setup(t)
		if err := os.Symlink(filepath.Dir(victim), dir); err != nil {
			t.Fatal(err)
		}
		if err := Drop(dir, procid.Identity{PID: 1}); stick.ErrorCode(err) != stick.CodeDataDir {
			t.Fatalf("a cli directory planted as a link: %v, want data_dir_unusable", err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(victim)); len(entries) != 1 {
			t.Fatalf("files created through the link: %v", entries)
		}
	})
	t.Run("data directory writable by others", func(t *testing.T) {
		dir, _ := setup(t)
		if err := os.Chmod(filepath.Dir(dir), 0o777); err != nil {
			t.Fatal(err)
		}
		err := Drop(dir, procid.Identity{PID: 1})
		if se, ok := err.(*stick.Error); !ok || se.Code != stick.CodeDataDir || se.Hint == "" {
			t.Fatalf("%v, want data_dir_unusable with a hint", err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("the cli directory was created in a refused data directory: %v", err)
		}
	})
}
