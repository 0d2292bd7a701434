package store_test

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stickhq/stick/store"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// chmodFault takes the write permission away from rel inside the data
// directory, and gives it back when the test ends.
func chmodFault(rel string, mode fs.FileMode) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		t.Helper()
		p := filepath.Join(dir, rel)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(p, fi.Mode().Perm()) })
		return dir
	}
}

// chmodUndo gives rel inside the data directory the mode it had. For the
// database file it does so, as the hint says, for the -wal and -shm files
// beside it too, which SQLite created with the read-only file's mode.
func chmodUndo(rel string, mode fs.FileMode) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		paths := []string{filepath.Join(dir, rel)}
		for _, suffix := range []string{"-wal", "-shm"} {
			if p := filepath.Join(dir, rel+suffix); rel == store.DBFileName && fileExists(p) {
				paths = append(paths, p)
			}
		}
		for _, p := range paths {
			if err := os.Chmod(p, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// fileInPlace puts a file holding someone's data where the data directory
// (below, with sub, one of its parents) should be.
func fileInPlace(sub string) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		t.Helper()
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, []byte("someone's notes, not a directory\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, sub)
	}
}

// rewriteDB replaces the database file's bytes with edit's result.
func rewriteDB(edit func(t *testing.T, b []byte) []byte) func(*testing.T, string) string {
	return func(t *testing.T, dir string) string {
		t.Helper()
		p := filepath.Join(dir, store.DBFileName)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, edit(t, b), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
}

// pageSize reads the page size from a SQLite header.
func pageSize(t *testing.T, b []byte) int {
	t.Helper()
	if len(b) < 100 || !bytes.HasPrefix(b, []byte("SQLite format 3\x00")) {
		t.Fatalf("not a SQLite file: %d bytes", len(b))
	}
	n := int(binary.BigEndian.Uint16(b[16:18]))
	if n == 1 {
		n = 65536
	}
	if len(b) < 3*n {
		t.Fatalf("the seeded database has only %d bytes of %d-byte pages", len(b), n)
	}
	return n
}

// garbage is what a file that is not a database holds.
func garbage() []byte {
	return bytes.Repeat([]byte("this is not a database, it is a grocery list: eggs, flour, milk. "), 128)
}

// execRaw runs q on the database file at path through a connection of its
// own, closed at once, the way another program would.
func execRaw(t *testing.T, path, q string) {
	t.Helper()
	c, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := sqlitex.ExecuteTransient(c, q, nil); err != nil {
		t.Fatal(err)
	}
}

// setSchemaVersion stores v as the database's schema version.
func setSchemaVersion(v int) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		execRaw(t, filepath.Join(dir, store.DBFileName), "UPDATE meta SET value = '"+strconv.Itoa(v)+"' WHERE key = 'schema_version'")
	}
}
