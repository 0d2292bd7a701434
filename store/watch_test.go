package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// failAfter bounds every wait in these tests; only a broken watcher takes it.
const failAfter = 5 * time.Second

// openTestConn opens path read-write in WAL mode and closes it at cleanup.
func openTestConn(t *testing.T, path string) *sqlite.Conn {
	t.Helper()
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	conn.SetBusyTimeout(failAfter)
	t.Cleanup(func() {
		if err := conn.Close(); err != nil {
			t.Errorf("close conn: %v", err)
		}
	})
	return conn
}

func execT(t *testing.T, conn *sqlite.Conn, query string) {
	t.Helper()
	if err := sqlitex.ExecuteTransient(conn, query, nil); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// dataVersionFunc reads PRAGMA data_version on conn, as the store's
// dedicated watcher connection will.
func dataVersionFunc(conn *sqlite.Conn) func() (int64, error) {
	return func() (int64, error) {
		var v int64
		err := sqlitex.ExecuteTransient(conn, "PRAGMA data_version", &sqlitex.ExecOptions{
			ResultFunc: func(stmt *sqlite.Stmt) error {
				v = stmt.ColumnInt64(0)
				return nil
			},
		})
		return v, err
	}
}

// testDB is a WAL database in a temporary directory with a writer connection
// and a dedicated connection for the watcher's data_version reads.
type testDB struct {
	path    string
	writer  *sqlite.Conn
	version func() (int64, error)
}

func newTestDB(t *testing.T) *testDB {
	t.Helper()
	path := filepath.Join(t.TempDir(), DBFileName)
	writer := openTestConn(t, path)
	execT(t, writer, "PRAGMA journal_mode=WAL")
	execT(t, writer, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
	return &testDB{path: path, writer: writer, version: dataVersionFunc(openTestConn(t, path))}
}

// commit commits on the writer connection and rings the bell, as every
// stick writer does.
func (db *testDB) commit(t *testing.T) {
	t.Helper()
	execT(t, db.writer, "INSERT INTO t (v) VALUES ('x')")
	if err := os.WriteFile(db.path+bellSuffix, []byte{1}, 0o600); err != nil {
		t.Fatal(err)
	}
}

// startTestWatcher starts a watcher on db and closes it at cleanup, before
// the connections it uses are closed.
func startTestWatcher(t *testing.T, db *testDB, fallback time.Duration, forcePoll bool) *watcher {
	t.Helper()
	w, err := startWatcher(db.path, db.version, fallback, forcePoll)
	if err != nil {
		t.Fatalf("startWatcher: %v", err)
	}
	t.Cleanup(func() {
		if err := w.close(); err != nil {
			t.Errorf("close watcher: %v", err)
		}
	})
	return w
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-ch:
		return time.Since(start)
	case <-time.After(failAfter):
		t.Fatalf("%s: no wake-up within %v", what, failAfter)
		return 0
	}
}

func TestWatcherWakesOnCommitFromOtherConnection(t *testing.T) {
	// FULL syncs the -wal before publishing a commit, widening the gap
	// between the filesystem event and data_version moving; NORMAL is what
	// the store uses.
	for _, sync := range []string{"FULL", "NORMAL"} {
		t.Run(sync, func(t *testing.T) {
			db := newTestDB(t)
			execT(t, db.writer, "PRAGMA synchronous="+sync)
			// With an hour-long fallback only the filesystem event path can pass.
			w := startTestWatcher(t, db, time.Hour, false)
			if w.mode() != "notify" {
				t.Skipf("filesystem notifications unavailable here (mode %q)", w.mode())
			}
			const n = 30
			var lat []time.Duration
			for i := range n {
				ch := w.changed()
				if isClosed(ch) {
					t.Fatalf("commit %d: channel closed before the commit", i)
				}
				db.commit(t)
				lat = append(lat, waitClosed(t, ch, "commit on another connection"))
				if i%3 == 0 {
					time.Sleep(10 * time.Millisecond) // vary the spacing of commits
				}
			}
			slices.Sort(lat)
			t.Logf("wake latency after commit returned, %d commits: min %v, median %v, p90 %v, max %v",
				n, lat[0], lat[n/2], lat[n*9/10], lat[n-1])
			if lat[n/2] > 500*time.Millisecond {
				t.Errorf("median wake latency %v; want milliseconds", lat[n/2])
			}
		})
	}
}

func TestWatcherNotifyWakesAtOnce(t *testing.T) {
	db := newTestDB(t)
	w := startTestWatcher(t, db, time.Hour, false)

	ch := w.changed()
	if ch2 := w.changed(); ch2 != ch {
		t.Fatal("changed returned different channels before a commit")
	}
	db.commit(t)
	w.notify()
	if !isClosed(ch) {
		t.Fatal("notify did not close the channel synchronously")
	}
	// The fresh channel may still close once for the same commit: the
	// watcher goroutine may read data_version for it (or for the
	// filesystem event) after this changed(), the one spurious wake-up
	// that notify documents. It must be a new channel.
	if next := w.changed(); next == ch {
		t.Fatal("changed returned the fired channel again")
	}
}

func TestWatcherNotifyWithoutWaitersKeepsChannel(t *testing.T) {
	w, err := startWatcher(filepath.Join(t.TempDir(), DBFileName), func() (int64, error) { return 1, nil }, time.Hour, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	w.notify() // nobody waits: nothing to wake
	ch := w.changed()
	if isClosed(ch) {
		t.Fatal("channel handed out after an earlier notify is already closed")
	}
	w.notify()
	if !isClosed(ch) {
		t.Fatal("notify did not wake the waiter")
	}
}

func TestWatcherFallbackPoll(t *testing.T) {
	db := newTestDB(t)
	w := startTestWatcher(t, db, 20*time.Millisecond, true)
	if got := w.mode(); got != "poll" {
		t.Fatalf("mode() = %q, want poll", got)
	}
	for i := range 3 {
		ch := w.changed()
		db.commit(t)
		d := waitClosed(t, ch, "commit seen by fallback poll")
		t.Logf("poll wake %d after %v", i, d)
	}
}

func TestWatcherNoWakeWithoutCommit(t *testing.T) {
	db := newTestDB(t)
	// A short fallback makes the poll run during the window too.
	w := startTestWatcher(t, db, 20*time.Millisecond, false)

	// A commit made while nobody waits is not read at all; the next waiter
	// may be woken once for it, never more.
	db.commit(t)
	ch := w.changed()
	for wakes := 0; ; wakes++ {
		select {
		case <-ch:
			if wakes > 0 {
				t.Fatal("one commit nobody waited for woke the next waiter twice")
			}
			ch = w.changed()
			continue
		case <-time.After(200 * time.Millisecond):
		}
		break
	}

	reader := openTestConn(t, db.path)
	execT(t, reader, "SELECT count(*) FROM t")
	dir := filepath.Dir(db.path)
	if err := os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
		t.Fatal("woke up without a commit")
	case <-time.After(150 * time.Millisecond):
	}
	db.commit(t)
	waitClosed(t, ch, "commit after the quiet window")
}

// fakeVersion is a data_version function the test controls, counting calls.
type fakeVersion struct {
	v     atomic.Int64
	calls atomic.Int64
	fail  atomic.Bool
}

func (f *fakeVersion) read() (int64, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return 0, errors.New("injected failure")
	}
	return f.v.Load(), nil
}

func TestWatcherIdleDoesNotPoll(t *testing.T) {
	var f fakeVersion
	w, err := startWatcher(filepath.Join(t.TempDir(), DBFileName), f.read, 5*time.Millisecond, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	time.Sleep(100 * time.Millisecond)
	if got := f.calls.Load(); got != 1 {
		t.Fatalf("idle watcher read data_version %d times; want only the baseline read", got)
	}
	ch := w.changed()
	f.v.Add(1)
	waitClosed(t, ch, "fake commit")
	if got := f.calls.Load(); got < 2 {
		t.Fatalf("data_version read %d times while waiting", got)
	}
}

// Commits of this process while nobody waits cost no data_version read.
func TestWatcherOwnCommitsWithoutWaitersAreNotRead(t *testing.T) {
	var f fakeVersion
	w, err := startWatcher(filepath.Join(t.TempDir(), DBFileName), f.read, time.Hour, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	for range 50 {
		f.v.Add(1)
		w.notify()
	}
	time.Sleep(50 * time.Millisecond)
	if got := f.calls.Load(); got != 1 {
		t.Fatalf("data_version read %d times for commits nobody waited for; want only the baseline read", got)
	}
	ch := w.changed()
	waitClosed(t, ch, "the first waiter after unread commits")
	ch = w.changed()
	f.v.Add(1)
	w.notify()
	waitClosed(t, ch, "an own commit while someone waits")
}

func TestWatcherVersionErrorWakes(t *testing.T) {
	var f fakeVersion
	w, err := startWatcher(filepath.Join(t.TempDir(), DBFileName), f.read, 5*time.Millisecond, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	ch := w.changed()
	f.fail.Store(true)
	waitClosed(t, ch, "data_version error")
}

func TestNewWatcherErrors(t *testing.T) {
	dir := t.TempDir()
	ok := func() (int64, error) { return 0, nil }
	if _, err := newWatcher(filepath.Join(dir, DBFileName), nil, 0); err == nil {
		t.Error("nil version func: no error")
	}
	if _, err := newWatcher(filepath.Join(dir, "missing", DBFileName), ok, 0); err == nil {
		t.Error("missing directory: no error")
	}
	sentinel := errors.New("no database")
	_, err := newWatcher(filepath.Join(dir, DBFileName), func() (int64, error) { return 0, sentinel }, 0)
	if !errors.Is(err, sentinel) {
		t.Errorf("failing version func: err = %v, want it wrapped", err)
	}
	w, err := newWatcher(filepath.Join(dir, DBFileName), ok, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	if w.fallback != defaultFallback {
		t.Errorf("fallback = %v, want %v", w.fallback, defaultFallback)
	}
}

func TestWatcherCloseIdempotent(t *testing.T) {
	for _, forcePoll := range []bool{false, true} {
		before := runtime.NumGoroutine()
		var f fakeVersion
		w, err := startWatcher(filepath.Join(t.TempDir(), DBFileName), f.read, time.Hour, forcePoll)
		if err != nil {
			t.Fatal(err)
		}
		ch := w.changed()
		if err := w.close(); err != nil {
			t.Fatalf("first close: %v", err)
		}
		if err := w.close(); err != nil {
			t.Fatalf("second close: %v", err)
		}
		if !isClosed(w.done) {
			t.Fatal("watcher goroutine still running after close")
		}
		if !isClosed(ch) {
			t.Fatal("close did not wake the waiter")
		}
		if !isClosed(w.changed()) {
			t.Fatal("changed after close returned an open channel")
		}
		w.notify() // must not panic or block

		deadline := time.Now().Add(failAfter)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				t.Fatalf("forcePoll=%v: %d goroutines after close, %d before", forcePoll, runtime.NumGoroutine(), before)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func TestWatcherRelevant(t *testing.T) {
	w := &watcher{names: [3]string{"rooms.sqlite", "rooms.sqlite-journal", "rooms.sqlite-bell"}}
	dir := t.TempDir()
	tests := []struct {
		name string
		op   fsnotify.Op
		want bool
	}{
		{"rooms.sqlite", fsnotify.Write, true},
		{"rooms.sqlite-bell", fsnotify.Write, true},
		{"rooms.sqlite-bell", fsnotify.Create, true},
		{"rooms.sqlite-journal", fsnotify.Remove, true},
		{"ROOMS.SQLITE-BELL", fsnotify.Write, true},
		{"rooms.sqlite-bell", fsnotify.Chmod, false},
		// Frames reach the -wal before the commit is published.
		{"rooms.sqlite-wal", fsnotify.Write, false},
		{"rooms.sqlite-wal", fsnotify.Create, false},
		{"rooms.sqlite-shm", fsnotify.Write, false},
		{"rooms.sqlite.bak", fsnotify.Write, false},
		{"other.sqlite-wal", fsnotify.Write, false},
		{"notes.txt", fsnotify.Create, false},
	}
	for _, tt := range tests {
		ev := fsnotify.Event{Name: filepath.Join(dir, tt.name), Op: tt.op}
		if got := w.relevant(ev); got != tt.want {
			t.Errorf("relevant(%v) = %v, want %v", ev, got, tt.want)
		}
	}
}
