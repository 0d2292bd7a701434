package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// fault is one way the data directory can be broken when stick opens it.
type fault struct {
	name string
	// wal seeds a crashed store: the notes are still in the -wal file.
	wal bool
	// make breaks the seeded data directory and returns the directory to
	// open: the same one, or a path that cannot be one.
	make func(t *testing.T, dir string) string
	// run opens under the fault (in process when nil).
	run runner
	// writer and reader are what OpenDir and OpenReader must come to.
	writer, reader want
	// undo removes the fault, after which the seeded notes must read back;
	// nil when the fault is the database itself, which must then be left
	// byte for byte as it was.
	undo func(t *testing.T, dir string)
}

var (
	fileWritable = "make the file, its -wal and -shm files and its directory writable"
	corrupt      = want{code: stick.CodeDBCorrupt, msg: "is not a usable SQLite database", hint: "move the file aside"}
)

// faults is the matrix of faults at open.
var faults = []fault{
	{
		name:   "data dir read-only (mode 0555)",
		make:   chmodFault("", 0o555),
		run:    unprivileged,
		writer: want{code: stick.CodeDataDir, msg: "is not writable", hint: "writable directory"},
		// Even a reader must create the -shm file beside the database.
		reader: want{code: stick.CodeDataDir, msg: "its directory is read-only", hint: fileWritable},
		undo:   chmodUndo("", 0o700),
	},
	{
		name:   "database file read-only (mode 0444)",
		make:   chmodFault(store.DBFileName, 0o444),
		run:    unprivileged,
		writer: want{code: stick.CodeDataDir, msg: "cannot write", hint: fileWritable},
		reader: want{notes: seededNotes},
		undo:   chmodUndo(store.DBFileName, 0o600),
	},
	{
		name:   "data dir on a read-only filesystem",
		run:    readOnlyMount(""),
		writer: want{code: stick.CodeDataDir, msg: "read-only file system", hint: "writable directory"},
		reader: want{code: stick.CodeDataDir, msg: "cannot open", hint: fileWritable},
		undo:   func(*testing.T, string) {}, // the mount ended with the helper
	},
	{
		name:   "database file on a read-only filesystem",
		run:    readOnlyMount(store.DBFileName),
		writer: want{code: stick.CodeDataDir, msg: "cannot write", hint: fileWritable},
		reader: want{notes: seededNotes},
		undo:   func(*testing.T, string) {},
	},
	{
		name:   "a file where the data dir should be",
		make:   fileInPlace(""),
		writer: want{code: stick.CodeDataDir, msg: "exists but is not a directory", hint: "writable directory"},
		reader: want{code: stick.CodeDataDir, msg: "not a directory", hint: "writable directory"},
	},
	{
		name:   "a file where a parent of the data dir should be",
		make:   fileInPlace("talking-stick"),
		writer: want{code: stick.CodeDataDir, msg: "not a directory", hint: "writable directory"},
		reader: want{code: stick.CodeDataDir, msg: "not a directory", hint: "writable directory"},
	},
	{
		name:   "garbage database file",
		make:   rewriteDB(func(*testing.T, []byte) []byte { return garbage() }),
		writer: corrupt,
		reader: corrupt,
	},
	{
		name: "valid header, garbled pages",
		make: rewriteDB(func(t *testing.T, b []byte) []byte {
			for i := pageSize(t, b); i < len(b); i++ {
				b[i] ^= 0x5a
			}
			return b
		}),
		writer: corrupt,
		reader: corrupt,
	},
	{
		name:   "valid header, truncated pages",
		make:   rewriteDB(func(t *testing.T, b []byte) []byte { return b[:pageSize(t, b)*3/2] }),
		writer: corrupt,
		reader: corrupt,
	},
	{
		// A crash while a commit was being appended: SQLite's recovery
		// drops the torn transaction, atomically, and keeps the rest.
		name: "torn -wal file (last frame cut short)",
		wal:  true,
		make: func(t *testing.T, dir string) string {
			t.Helper()
			p := filepath.Join(dir, store.DBFileName+"-wal")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, fi.Size()-100); err != nil {
				t.Fatal(err)
			}
			return dir
		},
		writer: want{notes: seededNotes[:2]},
		reader: want{notes: seededNotes[:2]},
	},
	{
		// A -wal file whose header is not SQLite's holds no commits.
		name: "garbage -wal file beside a sound database",
		make: func(t *testing.T, dir string) string {
			t.Helper()
			if err := os.WriteFile(filepath.Join(dir, store.DBFileName+"-wal"), garbage(), 0o600); err != nil {
				t.Fatal(err)
			}
			return dir
		},
		writer: want{notes: seededNotes},
		reader: want{notes: seededNotes},
	},
	{
		name: "database from a future schema",
		make: func(t *testing.T, dir string) string {
			setSchemaVersion(99)(t, dir)
			return dir
		},
		writer: want{code: stick.CodeDBSchemaMismatch, msg: "schema version 99", hint: "upgrade stick, or set"},
		reader: want{code: stick.CodeDBSchemaMismatch, msg: "schema version 99", hint: "upgrade stick, or set"},
		undo:   setSchemaVersion(store.SchemaVersion),
	},
	{
		name: "another application's database",
		make: func(t *testing.T, dir string) string {
			t.Helper()
			p := filepath.Join(dir, store.DBFileName)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			execRaw(t, p, "CREATE TABLE precious (x)")
			return dir
		},
		writer: want{code: stick.CodeDBSchemaMismatch, msg: "not a stick database", hint: "move the file aside"},
		reader: want{code: stick.CodeDBSchemaMismatch, msg: "not a stick database", hint: "move the file aside"},
	},
	{
		// What a first open on a full disk leaves behind (see TestFullDisk):
		// SQLite reads it as an empty database, which a writer fills.
		name:   "empty database file",
		make:   rewriteDB(func(*testing.T, []byte) []byte { return nil }),
		writer: want{},
		reader: want{code: stick.CodeRoomNotFound, msg: "is empty", hint: "stick join"},
	},
}

// TestFaultsAtOpen opens a data directory under each fault with OpenDir and
// OpenReader: a coded error naming the path with a hint (or, for faults
// SQLite recovers from, the data that survived), no panic, no file changed
// by a failed open or by a reader, and once the fault is removed the notes
// written before it read back.
func TestFaultsAtOpen(t *testing.T) {
	for _, f := range faults {
		for _, opener := range []string{openDir, openReader} {
			t.Run(f.name+"/"+opener, func(t *testing.T) {
				t.Parallel()
				seeded := seed(t, f.wal)
				dir := seeded
				if f.make != nil {
					dir = f.make(t, seeded)
				}
				run, w := f.run, f.writer
				if run == nil {
					run = inProcess
				}
				if opener == openReader {
					w = f.reader
				}
				before := fileHashes(t, filepath.Dir(seeded))
				w.check(t, dir, run(t, opener, dir))
				if opener == openReader || w.code != "" {
					checkUnchanged(t, before, fileHashes(t, filepath.Dir(seeded)))
				}
				if f.undo != nil {
					f.undo(t, seeded)
					want{notes: seededNotes}.check(t, seeded, attempt(openDir, seeded))
				}
			})
		}
	}
}
