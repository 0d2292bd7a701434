package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// faultNote is written before each fault; it must read back once the fault
// is removed.
const faultNote = "written before the fault"

// faultWant is what a command prints when it opens the data directory
// under a fault: exit 1 and the lines "stick: <code>: <message naming the
// data directory>" and "hint: ...". A zero faultWant means it succeeds.
type faultWant struct {
	code      stick.Code
	msg, hint string
}

// cliFault is one way the data directory can be broken when a command
// opens it.
type cliFault struct {
	name string
	// make breaks the seeded data directory and returns the value for
	// TALKING_STICK_DATA_DIR (data itself unless said otherwise).
	make func(t *testing.T, data string) string
	// prefix returns the command line that runs the binary under the
	// fault (nil: the binary itself), or skips the test when the fault
	// cannot be made here.
	prefix func(t *testing.T, data, dir string) []string
	// writer is what state and join print (they open the database to
	// write), reader what status prints (it opens it read-only).
	writer, reader faultWant
	// undo removes the fault, after which the note reads back; nil when
	// the fault is the database itself.
	undo func(t *testing.T, data string)
}

var cliFaults = []cliFault{
	{
		name:   "a file where the data dir should be",
		make:   func(t *testing.T, data string) string { replaceWithFile(t, data); return data },
		writer: faultWant{stick.CodeDataDir, "exists but is not a directory", "writable directory"},
		reader: faultWant{stick.CodeDataDir, "not a directory", "writable directory"},
	},
	{
		name:   "garbage database file",
		make:   editDB(func(t *testing.T, b []byte) []byte { return bytes.Repeat([]byte("not a database. "), 512) }),
		writer: faultWant{stick.CodeDBCorrupt, "is not a usable SQLite database", "move the file aside"},
		reader: faultWant{stick.CodeDBCorrupt, "is not a usable SQLite database", "move the file aside"},
	},
	{
		name: "valid header, garbled pages",
		make: editDB(func(t *testing.T, b []byte) []byte {
			n := int(binary.BigEndian.Uint16(b[16:18]))
			if n < 512 || len(b) < 2*n {
				t.Fatalf("unexpected database: %d bytes, page size %d", len(b), n)
			}
			for i := n; i < len(b); i++ {
				b[i] ^= 0x5a
			}
			return b
		}),
		writer: faultWant{stick.CodeDBCorrupt, "is not a usable SQLite database", "move the file aside"},
		reader: faultWant{stick.CodeDBCorrupt, "is not a usable SQLite database", "move the file aside"},
	},
	{
		name:   "database from a future schema",
		make:   func(t *testing.T, data string) string { setVersion(t, data, 99); return data },
		writer: faultWant{stick.CodeDBSchemaMismatch, "schema version 99", "upgrade stick, or set"},
		reader: faultWant{stick.CodeDBSchemaMismatch, "schema version 99", "upgrade stick, or set"},
		undo:   func(t *testing.T, data string) { setVersion(t, data, store.SchemaVersion) },
	},
	{
		name:   "data dir read-only (mode 0555)",
		make:   chmodFor(".", 0o555),
		prefix: unprivileged,
		writer: faultWant{stick.CodeDataDir, "is not writable", "writable directory"},
		// Even a reader creates the -shm file beside the database.
		reader: faultWant{stick.CodeDataDir, "its directory is read-only", "-wal and -shm files"},
		undo:   func(t *testing.T, data string) { chmodAll(t, 0o700, data) },
	},
	{
		name:   "database file read-only (mode 0444)",
		make:   chmodFor(store.DBFileName, 0o444),
		prefix: unprivileged,
		writer: faultWant{stick.CodeDataDir, "cannot write", "-wal and -shm files"},
		reader: faultWant{},
		// As the hint says: the -wal and -shm files SQLite created beside
		// the read-only file are read-only too.
		undo: func(t *testing.T, data string) {
			p := filepath.Join(data, store.DBFileName)
			chmodAll(t, 0o600, p, p+"-wal", p+"-shm")
		},
	},
	{
		name:   "full disk",
		make:   func(t *testing.T, _ string) string { return t.TempDir() },
		prefix: onFullDisk,
		writer: faultWant{stick.CodeDataDir, "is full", "free some space"},
		reader: faultWant{stick.CodeDataDir, "is full", "free some space"},
	},
}

// TestBinaryFaultsAtOpen runs state, join and status (and status --prompt)
// through the built binary with TALKING_STICK_DATA_DIR pointing at a
// broken data directory: each prints one line with the code and the path
// and one hint line, exits 1 and does not panic; status --prompt, which a
// shell runs before every prompt, exits 0 and prints nothing where status
// fails (see newStatus). No file of the data directory changes, and once
// the fault is removed the note written before it reads back.
func TestBinaryFaultsAtOpen(t *testing.T) {
	t.Parallel()
	for _, f := range cliFaults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			repo := testkit.Repo(t)
			data := filepath.Join(t.TempDir(), "data")
			envFor := func(dir string) []string {
				return []string{"TALKING_STICK_DATA_DIR=" + dir, identity.AgentEnv + "=human:ana"}
			}
			for _, args := range [][]string{{"join"}, {"note", faultNote}} {
				if r := runBin(t, repo, envFor(data), args...); r.code != 0 {
					t.Fatalf("stick %v: exit %d: %s", args, r.code, r.stderr)
				}
			}
			dir := f.make(t, data)
			var prefix []string
			if f.prefix != nil {
				prefix = f.prefix(t, data, dir)
			}
			before := treeHashes(t, filepath.Dir(data))
			for _, c := range []struct {
				args []string
				want faultWant
			}{
				{[]string{"state"}, f.writer},
				{[]string{"join"}, f.writer},
				{[]string{"status"}, f.reader},
			} {
				checkFault(t, runUnder(t, prefix, repo, envFor(dir), c.args...), dir, c.want, c.args...)
			}
			// The room is idle: a prompt that can read it shows that.
			segment := "idle\n"
			if f.reader.code != "" {
				segment = ""
			}
			if r := runUnder(t, prefix, repo, envFor(dir), "status", "--prompt"); r.code != 0 || r.stderr != "" || r.stdout != segment {
				t.Errorf("status --prompt: exit %d, stdout %q, stderr %q; want exit 0 and %q", r.code, r.stdout, r.stderr, segment)
			}
			after := treeHashes(t, filepath.Dir(data))
			for p, h := range before {
				if after[p] != h {
					t.Errorf("%s was changed or removed", p)
				}
			}
			if f.undo != nil {
				f.undo(t, data)
				if r := runBin(t, repo, envFor(data), "events"); r.code != 0 || !strings.Contains(r.stdout, faultNote) {
					t.Errorf("after the fault is removed, events: exit %d, %s%s", r.code, r.stdout, r.stderr)
				}
			}
		})
	}
}

// checkFault checks what one command printed under a fault.
func checkFault(t *testing.T, r binResult, dir string, want faultWant, args ...string) {
	t.Helper()
	cmd := "stick " + strings.Join(args, " ")
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("%s panicked: %s", cmd, r.stderr)
	}
	if want.code == "" {
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%s: exit %d, stderr %q; want success", cmd, r.code, r.stderr)
		}
		return
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.code != 1 || r.stdout != "" || len(lines) != 2 {
		t.Fatalf("%s: exit %d, stdout %q, stderr %q; want exit 1 and two lines on stderr", cmd, r.code, r.stdout, r.stderr)
	}
	if prefix := "stick: " + string(want.code) + ": "; !strings.HasPrefix(lines[0], prefix) || !strings.Contains(lines[0], dir) || !strings.Contains(lines[0], want.msg) {
		t.Errorf("%s: %q; want %q naming %s and saying %q", cmd, lines[0], prefix+"...", dir, want.msg)
	}
	if !strings.HasPrefix(lines[1], "hint: ") || !strings.Contains(lines[1], want.hint) {
		t.Errorf("%s: %q; want a hint saying %q", cmd, lines[1], want.hint)
	}
	t.Logf("%s:\n%s", cmd, r.stderr)
}

// runUnder is runBin with the binary run by the command line prefix (none
// when empty).
func runUnder(t *testing.T, prefix []string, dir string, env []string, args ...string) binResult {
	t.Helper()
	if len(prefix) == 0 {
		return runBin(t, dir, env, args...)
	}
	cmd := exec.Command(prefix[0], append(append(prefix[1:len(prefix):len(prefix)], stickBin), args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := 0
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run %v stick %v: %v", prefix, args, err)
		}
		code = ee.ExitCode()
	}
	return binResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// probe runs args and skips the test, saying why, unless they succeed.
// The skip message shows args up to the first "--".
func probe(t *testing.T, why string, args ...string) {
	t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		shown := args
		if i := slices.Index(args, "--"); i > 0 {
			shown = args[:i]
		}
		t.Skip(strings.TrimSpace(fmt.Sprintf("%s: %s: %v %s", why, strings.Join(shown, " "), err, out)))
	}
}

// unprivileged runs the binary directly when permission bits bind this
// process, and otherwise (root) as user 1000 in a new user namespace in
// which that user owns the test's files and has no capabilities.
func unprivileged(t *testing.T, _, _ string) []string {
	t.Helper()
	if testkit.PermissionBitsBind() {
		return nil
	}
	prefix := []string{"unshare", "--map-user=1000", "--map-group=1000", "--"}
	probe(t, "permission bits do not bind this process (root), and it cannot run stick as another user", append(prefix, "true")...)
	return prefix
}

// fullDiskScript mounts a 1 MiB tmpfs on $1, copies the database of the
// data directory $2 onto it, fills it, and runs the rest of its arguments.
const fullDiskScript = `mount -t tmpfs -o size=1m,mode=0700 tmpfs "$1" && cp "$2/rooms.sqlite" "$1/" || exit 97
head -c 2097152 /dev/zero > "$1/filler" 2>/dev/null
shift 2
exec "$@"`

// onFullDisk runs the binary with the data directory dir a full tmpfs
// holding a copy of data's database, in a private mount namespace (inside
// a new user namespace when not root), so the mount ends with the command.
func onFullDisk(t *testing.T, data, dir string) []string {
	t.Helper()
	prefix := []string{"unshare", "--mount", "--propagation", "private"}
	if os.Geteuid() != 0 {
		prefix = append(prefix, "--map-root-user")
	}
	prefix = append(prefix, "--", "sh", "-c", fullDiskScript, "sh", dir, data)
	probe(t, "cannot mount a tmpfs to fill", append(prefix, "true")...)
	return prefix
}

// chmodFor sets the mode of rel inside the data directory and restores it
// when the test ends.
func chmodFor(rel string, mode fs.FileMode) func(*testing.T, string) string {
	return func(t *testing.T, data string) string {
		t.Helper()
		p := filepath.Join(data, rel)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		chmodAll(t, mode, p)
		t.Cleanup(func() { _ = os.Chmod(p, fi.Mode().Perm()) })
		return data
	}
}

// chmodAll sets the mode of each path that exists.
func chmodAll(t *testing.T, mode fs.FileMode, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chmod(p, mode); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// replaceWithFile puts a file holding someone's notes where the data
// directory is.
func replaceWithFile(t *testing.T, data string) {
	t.Helper()
	if err := os.RemoveAll(data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte("someone's notes, not a directory\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// editDB replaces the bytes of the data directory's database.
func editDB(edit func(t *testing.T, b []byte) []byte) func(*testing.T, string) string {
	return func(t *testing.T, data string) string {
		t.Helper()
		p := filepath.Join(data, store.DBFileName)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, edit(t, b), 0o600); err != nil {
			t.Fatal(err)
		}
		return data
	}
}

// setVersion stores v as the schema version of the data directory's
// database, the way another program would.
func setVersion(t *testing.T, data string, v int) {
	t.Helper()
	c, err := sqlite.OpenConn(filepath.Join(data, store.DBFileName), sqlite.OpenReadWrite)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q := "UPDATE meta SET value = '" + strconv.Itoa(v) + "' WHERE key = 'schema_version'"
	if err := sqlitex.ExecuteTransient(c, q, nil); err != nil {
		t.Fatal(err)
	}
}

// treeHashes returns the SHA-256 of every regular file at or below root.
func treeHashes(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
