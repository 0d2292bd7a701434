package store_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/store"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// floorLog reads a floor database's room and events.
func floorLog(t *testing.T, path string) (state string, turn int64, types []string) {
	t.Helper()
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadOnly|sqlite.OpenWAL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = sqlitex.ExecuteTransient(conn, "SELECT state, turn_id FROM rooms", &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		state, turn = st.ColumnText(0), st.ColumnInt64(1)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	err = sqlitex.ExecuteTransient(conn, "SELECT event_type FROM events ORDER BY event_seq", &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		types = append(types, st.ColumnText(0))
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return state, turn, types
}

// TestFloorClaimRelease: a floor's claims and releases commit what a
// claim and a release write, in write-ahead-log mode, and a reopened
// floor goes on from its last turn.
func TestFloorClaimRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "floor.db")
	f, err := store.OpenFloor(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := f.Claim(); err != nil {
			t.Fatal(err)
		}
		if err := f.Release(); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Claim(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	state, turn, types := floorLog(t, path)
	if state != "owned" || turn != 4 || len(types) != 7 || types[0] != "claim" || types[5] != "release" {
		t.Fatalf("state %q, turn %d, events %v; want owned at turn 4 after 7 events", state, turn, types)
	}
	if f, err = store.OpenFloor(path); err != nil {
		t.Fatal(err)
	}
	if err := f.Release(); err != nil {
		t.Fatal(err)
	}
	if err := f.Claim(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, turn, types = floorLog(t, path); turn != 5 || len(types) != 9 {
		t.Fatalf("after reopening: turn %d, %d events; want turn 5, 9 events", turn, len(types))
	}
	var mode string
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := sqlitex.ExecuteTransient(conn, "PRAGMA journal_mode", &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
		mode = st.ColumnText(0)
		return nil
	}}); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q (%v), want wal", mode, err)
	}
}

// TestFloorScript: the script the sqlite3 tool runs sets the store's
// pragmas and leaves the same log as a floor's transactions.
func TestFloorScript(t *testing.T) {
	s := store.FloorScript(2)
	for _, want := range []string{"PRAGMA journal_mode = WAL;", "PRAGMA synchronous = NORMAL;", "PRAGMA foreign_keys = ON;", "BEGIN IMMEDIATE;", "COMMIT;"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if n := strings.Count(s, "BEGIN IMMEDIATE;"); n != 4 {
		t.Errorf("%d transactions, want 4", n)
	}
	if strings.Contains(s, "?") {
		t.Errorf("script has a parameter left unbound:\n%s", s)
	}
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("no sqlite3 tool to run the script")
	}
	path := filepath.Join(t.TempDir(), "floor.db")
	cmd := exec.Command(sqlite3, path)
	cmd.Stdin = strings.NewReader(s)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	if state, turn, types := floorLog(t, path); state != "reserved" || turn != 2 || strings.Join(types, " ") != "claim release claim release" {
		t.Fatalf("state %q, turn %d, events %v", state, turn, types)
	}
}

// BenchmarkFloorClaimRelease times one claim-shaped and one release-shaped
// transaction with nothing of stick's logic: the floor under stick's
// BenchmarkClaimReleaseCycle, for benchstat beside it.
func BenchmarkFloorClaimRelease(b *testing.B) {
	f, err := store.OpenFloor(filepath.Join(b.TempDir(), "floor.sqlite"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		if err := f.Claim(); err != nil {
			b.Fatal(err)
		}
		if err := f.Release(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
}
