//go:build unix

package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// TestStoreFilesOwnerOnly: under the usual umask 022 the database, its
// -wal and -shm files and every file beside them are readable by their
// owner only (they hold handoffs and reclaim tokens), and a database an
// older stick left readable by others is made owner-only.
func TestStoreFilesOwnerOnly(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	dir := t.TempDir()
	path := filepath.Join(dir, store.DBFileName)
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Update(context.Background(), func(tx stick.Tx) error {
		return tx.CreateRoom(stick.Room{ID: "room_a", Path: "/w/a", State: stick.StateIdle})
	}); err != nil {
		t.Fatal(err)
	}
	st.Rung("room_a", "") // creates the room's bell file
	for _, suffix := range []string{"", "-wal", "-shm", "-lock", "-bell", "-bells"} {
		fi, err := os.Stat(path + suffix)
		if err != nil {
			t.Fatalf("%s: %v", suffix, err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want owner-only", path+suffix, fi.Mode().Perm())
		}
	}
	bells, _ := os.ReadDir(path + "-bells")
	for _, e := range bells {
		if fi, err := e.Info(); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("bell %s: %v %v, want owner-only", e.Name(), fi.Mode(), err)
		}
	}
}

// unsafeCases are data directories another user could write in or owns.
func unsafeDirs(t *testing.T) map[string]string {
	t.Helper()
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	group := filepath.Join(t.TempDir(), "group")
	if err := os.Mkdir(group, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(group, 0o770); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"writable by others": open, "writable by group": group}
	if os.Geteuid() == 0 {
		other := filepath.Join(t.TempDir(), "other")
		if err := os.Mkdir(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		dirs["owned by another user"] = other
	} else {
		t.Log("not root: cannot make a directory owned by another user; that case is not run")
	}
	return dirs
}

// TestUnsafeDataDirRefused: a data directory another user owns or may
// write in is refused with data_dir_unusable and a hint, and nothing is
// created in it.
func TestUnsafeDataDirRefused(t *testing.T) {
	for name, dir := range unsafeDirs(t) {
		t.Run(name, func(t *testing.T) {
			for _, open := range []func() error{
				func() error { _, err := store.OpenDir(dir, store.Options{}); return err },
				func() error { _, err := store.Open(filepath.Join(dir, store.DBFileName), store.Options{}); return err },
			} {
				err := open()
				se := wantCode(t, err, stick.CodeDataDir)
				if !errors.Is(err, store.ErrDataDirUnsafe) || !strings.Contains(se.Hint, "chmod 700") {
					t.Fatalf("want ErrDataDirUnsafe with a chmod hint, got %v (hint %q)", err, se.Hint)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("files created in a refused directory: %v", entries)
			}
		})
	}
}

// TestStoreNeverFollowsLinks: a symbolic link planted in the data
// directory under the name of any file stick opens there is refused and
// the file it points to is left as it was.
func TestStoreNeverFollowsLinks(t *testing.T) {
	for _, suffix := range []string{"", "-wal", "-shm", "-lock", "-bell", "-bells"} {
		t.Run("rooms.sqlite"+suffix, func(t *testing.T) {
			victimDir := t.TempDir()
			victim := filepath.Join(victimDir, "victim")
			if suffix == "-bells" {
				victim = victimDir
			} else if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, store.DBFileName)
			if err := os.Symlink(victim, path+suffix); err != nil {
				t.Fatal(err)
			}
			st, err := store.OpenDir(dir, store.Options{})
			if err == nil {
				st.Close()
				t.Fatal("a planted link was followed")
			}
			se := wantCode(t, err, stick.CodeDataDir)
			if !strings.Contains(se.Message, "symbolic link") {
				t.Fatalf("the error must name the link: %v", err)
			}
			if suffix != "-bells" {
				if b, _ := os.ReadFile(victim); string(b) != "precious" {
					t.Fatalf("the link's target was changed: %q", b)
				}
			} else if entries, _ := os.ReadDir(victimDir); len(entries) != 0 {
				t.Fatalf("files created through the link: %v", entries)
			}
		})
	}
	t.Run("dangling rooms.sqlite", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), "made-by-stick")
		if err := os.Symlink(target, filepath.Join(dir, store.DBFileName)); err != nil {
			t.Fatal(err)
		}
		if st, err := store.OpenDir(dir, store.Options{}); err == nil {
			st.Close()
			t.Fatal("a dangling link was followed")
		}
		if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a file was created through the link: %v", err)
		}
	})
}

// TestReaderNeverFollowsLinks: the read-only opener used by the read
// commands refuses a -shm or -wal file planted as a link (SQLite would
// open it for writing) and a data directory others may write in.
func TestReaderNeverFollowsLinks(t *testing.T) {
	for _, suffix := range []string{"-wal", "-shm"} {
		dir := t.TempDir()
		st, err := store.OpenDir(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		victim := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, store.DBFileName) + suffix
		os.Remove(path)
		if err := os.Symlink(victim, path); err != nil {
			t.Fatal(err)
		}
		r, err := store.OpenReader(dir)
		if err == nil {
			r.Close()
			t.Fatalf("%s planted as a link was opened", suffix)
		}
		wantCode(t, err, stick.CodeDataDir)
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Fatalf("%s: the link's target was changed: %q", suffix, b)
		}
	}
	dir := t.TempDir()
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err = store.OpenReader(dir)
	wantCode(t, err, stick.CodeDataDir)
}
