package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"zombiezen.com/go/sqlite/sqlitex"
)

func TestReaderSeesCommitsAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	if _, err := store.OpenReader(dir); stick.ErrorCode(err) != stick.CodeRoomNotFound || !errors.Is(err, store.ErrNoDatabase) {
		t.Fatalf("OpenReader without a database = %v, want room_not_found wrapping ErrNoDatabase", err)
	}
	if _, err := os.Stat(filepath.Join(dir, store.DBFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenReader created the database: %v", err)
	}
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.UnixMilli(time.Now().UnixMilli()).UTC()
	create := func(id, path string) {
		t.Helper()
		if err := st.Update(ctx, func(tx stick.Tx) error {
			return tx.CreateRoom(stick.Room{ID: id, Path: path, State: stick.StateIdle, CreatedAt: now, UpdatedAt: now})
		}); err != nil {
			t.Fatal(err)
		}
	}
	create("room_1", "/repo")
	st.Close() // the last writer's close checkpoints and removes the WAL

	r, err := store.OpenReader(dir)
	if err != nil {
		t.Fatalf("OpenReader after the writer closed: %v", err)
	}
	defer r.Close()
	rooms := func() int {
		t.Helper()
		var n int
		if err := r.View(ctx, func(tx stick.Tx) error {
			rs, err := tx.RoomsUnder("", true)
			n = len(rs)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rooms(); n != 1 {
		t.Fatalf("reader sees %d rooms, want 1", n)
	}
	st, err = store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	create("room_2", "/other")
	if n := rooms(); n != 2 {
		t.Fatalf("reader sees %d rooms after a commit, want 2", n)
	}
	if err := r.Update(ctx, func(stick.Tx) error { t.Error("a reader ran an update"); return nil }); err == nil {
		t.Fatal("Update on a reader must fail")
	}
}

func TestReaderRefusesOtherSchemas(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	c := rawConn(t, filepath.Join(dir, store.DBFileName))
	if err := sqlitex.ExecuteTransient(c, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nil); err != nil {
		t.Fatal(err)
	}
	_, err = store.OpenReader(dir)
	wantCode(t, err, stick.CodeDBSchemaMismatch)
}

func BenchmarkReaderOpenListClose(b *testing.B) {
	dir := b.TempDir()
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close() // another process's connection keeps the WAL, as in real use
	ctx := context.Background()
	for b.Loop() {
		r, err := store.OpenReader(dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.View(ctx, func(tx stick.Tx) error { _, err := tx.RoomsAt([]string{"/repo"}, false); return err }); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

func TestReaderIntegrity(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	r, err := store.OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Integrity(context.Background())
	if err != nil || len(got) != 1 || got[0] != "ok" {
		t.Fatalf("Integrity of a fresh database = %q, %v", got, err)
	}
	if r.Path() != filepath.Join(dir, store.DBFileName) {
		t.Fatalf("Path = %s", r.Path())
	}
}
