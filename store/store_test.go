package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

func wantCode(t *testing.T, err error, code stick.Code) *stick.Error {
	t.Helper()
	var se *stick.Error
	if !errors.As(err, &se) || se.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	if se.Hint == "" || se.Details["path"] == nil {
		t.Fatalf("%s must say where and what to do: %+v", code, se)
	}
	return se
}

func rawConn(t *testing.T, path string) *sqlite.Conn {
	t.Helper()
	c, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func pragma(t *testing.T, c *sqlite.Conn, q string) string {
	t.Helper()
	var v string
	if err := sqlitex.ExecuteTransient(c, q, &sqlitex.ExecOptions{ResultFunc: func(s *sqlite.Stmt) error { v = s.ColumnText(0); return nil }}); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOpenCreatesOwnerOnlyDirAndSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "talking-stick")
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode: %v %v", fi.Mode(), err)
	}
	if st.Path() != filepath.Join(dir, "rooms.sqlite") {
		t.Fatal(st.Path())
	}
	c := rawConn(t, st.Path())
	if v := pragma(t, c, "PRAGMA journal_mode"); v != "wal" {
		t.Fatalf("journal_mode %s", v)
	}
	if v := pragma(t, c, "SELECT value FROM meta WHERE key = 'schema_version'"); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("schema_version %q", v)
	}
	// Opening again (a second process, a restart) migrates nothing and works.
	st2, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st2.Close()
}

func TestPragmasOnEveryConnection(t *testing.T) {
	st, err := store.OpenDir(t.TempDir(), store.Options{BusyTimeout: 1234 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Foreign keys are enforced on pooled connections: a member of a missing room is refused.
	err = st.Update(context.Background(), func(tx stick.Tx) error {
		return tx.SaveMember(stick.Member{RoomID: "room_missing", AgentID: "a", Kind: stick.KindProcess})
	})
	if err == nil {
		t.Fatal("foreign_keys must be ON on every connection")
	}
}

func TestConcurrentFirstOpen(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := store.OpenDir(dir, store.Options{})
			if err == nil {
				st.Close()
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent first open: %v", err)
		}
	}
}

func TestFutureSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	c := rawConn(t, filepath.Join(dir, "rooms.sqlite"))
	if err := sqlitex.ExecuteTransient(c, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nil); err != nil {
		t.Fatal(err)
	}
	_, err = store.OpenDir(dir, store.Options{})
	se := wantCode(t, err, stick.CodeDBSchemaMismatch)
	if se.Details["supported_schema_version"] != store.SchemaVersion {
		t.Fatal(se.Details)
	}
	// Nothing was changed: the version is still 99.
	if v := pragma(t, c, "SELECT value FROM meta WHERE key = 'schema_version'"); v != "99" {
		t.Fatalf("a refused open must not write: %s", v)
	}
}

func TestForeignDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	c := rawConn(t, filepath.Join(dir, "rooms.sqlite"))
	if err := sqlitex.ExecuteTransient(c, "CREATE TABLE precious (x)", nil); err != nil {
		t.Fatal(err)
	}
	_, err := store.OpenDir(dir, store.Options{})
	wantCode(t, err, stick.CodeDBSchemaMismatch)
	if v := pragma(t, c, "SELECT count(*) FROM sqlite_schema"); v != "1" {
		t.Fatalf("a foreign database must be left alone, has %s objects", v)
	}
}

func TestCorruptFileRefused(t *testing.T) {
	dir := t.TempDir()
	garbage := []byte("this is not a database, it is a grocery list: eggs, flour, milk, and more text to fill a page")
	for len(garbage) < 4096 {
		garbage = append(garbage, garbage...)
	}
	if err := os.WriteFile(filepath.Join(dir, "rooms.sqlite"), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := store.OpenDir(dir, store.Options{})
	wantCode(t, err, stick.CodeDBCorrupt)
	if b, _ := os.ReadFile(filepath.Join(dir, "rooms.sqlite")); string(b) != string(garbage) {
		t.Fatal("a corrupt file must not be modified")
	}
}

func TestFileWhereDataDirShouldBe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notadir")
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := store.OpenDir(dir, store.Options{})
	wantCode(t, err, stick.CodeDataDir)
}

func TestBusySurfacesAsDBBusy(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenDir(dir, store.Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Another "process" holds the write lock.
	c := rawConn(t, st.Path())
	if err := sqlitex.ExecuteTransient(c, "BEGIN IMMEDIATE", nil); err != nil {
		t.Fatal(err)
	}
	err = st.Update(context.Background(), func(stick.Tx) error { return nil })
	wantCode(t, err, stick.CodeDBBusy)
	if err := sqlitex.ExecuteTransient(c, "ROLLBACK", nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(context.Background(), func(stick.Tx) error { return nil }); err != nil {
		t.Fatalf("after the lock is released: %v", err)
	}
}

func TestEventsAreAppendOnly(t *testing.T) {
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	now := time.Now()
	err = st.Update(ctx, func(tx stick.Tx) error {
		if err := tx.CreateRoom(stick.Room{ID: "room_1", Path: "/r", State: stick.StateIdle, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		if _, err := tx.AppendEvent(stick.Event{RoomID: "room_1", Type: stick.EventNote, Text: "hi", CreatedAt: now}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(stick.Event{RoomID: "room_1", Type: stick.EventJoin, From: "a", CreatedAt: now})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c := rawConn(t, st.Path())
	for _, q := range []string{"UPDATE events SET text = 'changed'", "DELETE FROM events", "DELETE FROM events WHERE event_type = 'join'"} {
		if err := sqlitex.ExecuteTransient(c, q, nil); err == nil {
			t.Fatalf("%s must be refused", q)
		}
	}
	// Notes alone may be deleted: a channel keeps its notes for a while.
	if err := sqlitex.ExecuteTransient(c, "DELETE FROM events WHERE event_type = 'note'", nil); err != nil {
		t.Fatalf("deleting a note: %v", err)
	}
	if v := pragma(t, c, "SELECT group_concat(event_type) FROM events"); v != "join" {
		t.Fatalf("events left after deleting the note: %q, want join", v)
	}
}

func TestRoundTripAndOpenPathUniqueness(t *testing.T) {
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli()).UTC()
	in := stick.Room{
		ID: "room_1", Path: "/repo", State: stick.StateOwned, Owner: "a", TurnID: 3, LeaseID: "lease_x",
		LeaseExpiresAt: now.Add(time.Minute), Policy: stick.Policy{ClaimTTL: time.Minute}, CreatedAt: now, UpdatedAt: now,
	}
	h := &stick.Handoff{Status: "s", NextAction: "n", Artifacts: []stick.Artifact{{Path: "a.go", Lines: []int{1, 2}, Role: stick.RoleEdit}}}
	err = st.Update(ctx, func(tx stick.Tx) error {
		if err := tx.CreateRoom(in); err != nil {
			return err
		}
		if _, err := tx.AppendEvent(stick.Event{RoomID: "room_1", Type: stick.EventRelease, Handoff: h, CreatedAt: now}); err != nil {
			return err
		}
		// A second open room at the same path is refused; a closed one is not.
		if err := tx.CreateRoom(stick.Room{ID: "room_2", Path: "/repo", State: stick.StateIdle, CreatedAt: now, UpdatedAt: now}); err == nil {
			t.Error("two open rooms at one path must be refused")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.View(ctx, func(tx stick.Tx) error {
		out, ok, err := tx.Room("room_1")
		if err != nil || !ok {
			return err
		}
		if out.LeaseExpiresAt != in.LeaseExpiresAt || out.Policy != in.Policy || out.TurnID != 3 || out.ClosedAt != (time.Time{}) {
			t.Errorf("room round trip: %+v", out)
		}
		ev, ok, err := tx.LastEvent("room_1", stick.EventRelease, stick.EventPass)
		if err != nil || !ok || ev.Handoff.Artifacts[0].Lines[1] != 2 || ev.ID == "" {
			t.Errorf("event round trip: %+v %v", ev, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Writes inside View are refused.
	err = st.View(ctx, func(tx stick.Tx) error { return tx.SaveRoom(in) })
	if err == nil {
		t.Fatal("a write inside View must fail")
	}
}

func TestClosedStoreAndCancelledContext(t *testing.T) {
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Update(ctx, func(stick.Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
	// A domain error stays itself even when the context ends meanwhile.
	ctx, cancel = context.WithCancel(context.Background())
	domain := stick.Errorf(stick.CodeStaleLease, "stale")
	err = st.Update(ctx, func(stick.Tx) error { cancel(); return domain })
	if stick.ErrorCode(err) != stick.CodeStaleLease {
		t.Fatalf("domain error replaced: %v", err)
	}
	st.Close()
	err = st.View(context.Background(), func(stick.Tx) error { return nil })
	var se *stick.Error
	if !errors.As(err, &se) || se.Code != stick.CodeInternal {
		t.Fatalf("a closed store must give a coded error, got %v", err)
	}
	err = st.Update(context.Background(), func(stick.Tx) error { t.Error("an update ran on a closed store"); return nil })
	if !errors.As(err, &se) || se.Code != stick.CodeInternal {
		t.Fatalf("an update on a closed store must give a coded error, got %v", err)
	}
	st.Close() // closing again is harmless
}
