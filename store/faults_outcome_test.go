package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// The openers a fault is tried with: OpenDir is what every command that
// writes uses, OpenReader what 'stick status --prompt' and 'stick doctor'
// use.
const (
	openDir    = "OpenDir"
	openReader = "OpenReader"
)

// seededNotes are the notes a seeded data directory holds, oldest first.
var seededNotes = []string{"note 1", "note 2", "note 3"}

// outcome is what one open came to. Helper processes print it as JSON.
type outcome struct {
	Code    stick.Code `json:"code,omitempty"`
	Message string     `json:"message,omitempty"`
	Hint    string     `json:"hint,omitempty"`
	Path    string     `json:"path,omitempty"` // details["path"]
	Err     string     `json:"err,omitempty"`  // the whole error, for failure messages
	Panic   string     `json:"panic,omitempty"`
	// Notes are what a successful open reads back.
	Notes []string `json:"notes,omitempty"`
	// Setup says why a helper could not make the fault; the test skips.
	Setup string `json:"setup,omitempty"`
}

// describe records err, which nil leaves a success.
func describe(err error) outcome {
	if err == nil {
		return outcome{}
	}
	out := outcome{Err: err.Error()}
	var se *stick.Error
	if errors.As(err, &se) {
		out.Code, out.Message, out.Hint = se.Code, se.Message, se.Hint
		out.Path, _ = se.Details["path"].(string)
		if se.Err != nil {
			out.Err += " (cause: " + se.Err.Error() + ")"
		}
	}
	return out
}

// attempt opens dir with opener and, when that works, reads the notes back
// and closes it. A panic is recorded, not raised.
func attempt(opener, dir string) (out outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = outcome{Panic: fmt.Sprintf("%v\n%s", r, debug.Stack())}
		}
	}()
	var st interface {
		stick.Store
		io.Closer
	}
	var err error
	switch opener {
	case openDir:
		st, err = store.OpenDir(dir, store.Options{})
	case openReader:
		st, err = store.OpenReader(dir)
	default:
		return outcome{Err: "unknown opener " + opener}
	}
	if err != nil {
		return describe(err)
	}
	defer st.Close()
	notes, err := readNotes(st)
	if err != nil {
		return describe(err)
	}
	return outcome{Notes: notes}
}

// readNotes returns the text of every note in every room of st.
func readNotes(st stick.Store) ([]string, error) {
	svc, err := stick.New(st)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	rooms, err := svc.ListRooms(ctx, "")
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, r := range rooms {
		page, err := svc.RoomEvents(ctx, r.RoomID, 0, 0)
		if err != nil {
			return nil, err
		}
		for _, e := range page.Events {
			if e.Type == stick.EventNote {
				notes = append(notes, e.Text)
			}
		}
	}
	return notes, nil
}

// seed returns a data directory holding one room with seededNotes, the
// store closed. With wal, it returns a copy taken while the store was still
// open, so the notes are only in the -wal file, as after a crash.
func seed(t *testing.T, wal bool) string {
	t.Helper()
	dir, st, _, _, _ := openSeeded(t)
	defer st.Close()
	if !wal {
		return dir
	}
	crashed := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(crashed, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{store.DBFileName, store.DBFileName + "-wal"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crashed, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return crashed
}

// openSeeded opens a store in a new data directory and posts seededNotes
// in one room as human:ana; the store stays open (and is closed at the
// end of the test).
func openSeeded(t *testing.T) (dir string, st *store.Store, svc *stick.Service, ana stick.Caller, room string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "data")
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if svc, err = stick.New(st); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ana = stick.Caller{AgentID: "human:ana", Kind: stick.KindOneShot}
	j, err := svc.JoinPath(ctx, ana, stick.JoinRequest{Path: testkit.Repo(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range seededNotes {
		if _, err := svc.AppendNote(ctx, ana, j.RoomID, n); err != nil {
			t.Fatal(err)
		}
	}
	return dir, st, svc, ana, j.RoomID
}

// hashFiles returns the SHA-256 of every regular file at or below root.
func hashFiles(root string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = hex.EncodeToString(sum[:])
		return nil
	})
	return out, err
}

// fileHashes is hashFiles for a test.
func fileHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	out, err := hashFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkUnchanged fails unless every file of before is still there with the
// same bytes; files that appeared since (a lock or -shm file) are fine.
func checkUnchanged(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s was changed or removed by the open", p)
		}
	}
}

// want is what an open under a fault must come to.
type want struct {
	code      stick.Code // "" when the open succeeds
	msg, hint string     // parts of the message and of the hint
	notes     []string   // on success, the notes that read back
}

// check compares got with w; a failure's message and details must name
// dir (or a path inside it) and its hint must say what to do.
func (w want) check(t *testing.T, dir string, got outcome) {
	t.Helper()
	if got.Panic != "" {
		t.Fatalf("the open panicked: %s", got.Panic)
	}
	if w.code == "" {
		if got.Err != "" {
			t.Fatalf("want success, got %s", got.Err)
		}
		if !slices.Equal(got.Notes, w.notes) {
			t.Errorf("read back notes %q, want %q", got.Notes, w.notes)
		}
		return
	}
	if got.Code != w.code {
		t.Fatalf("got %q (%s), want code %s", got.Code, got.Err, w.code)
	}
	if !strings.Contains(got.Message, dir) || !strings.HasPrefix(got.Path, dir) {
		t.Errorf("message %q (details path %q) does not name %s", got.Message, got.Path, dir)
	}
	if !strings.Contains(got.Message, w.msg) {
		t.Errorf("message %q does not say %q", got.Message, w.msg)
	}
	if got.Hint == "" || !strings.Contains(got.Hint, w.hint) {
		t.Errorf("hint %q does not say %q", got.Hint, w.hint)
	}
	t.Logf("%s: %s\nhint: %s", got.Code, got.Message, got.Hint)
}
