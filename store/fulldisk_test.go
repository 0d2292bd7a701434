package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// TestWriteWhenTheDatabaseCannotGrow stops the database of a working store
// from growing, as a full disk would, with SQLite's max_page_count, so it
// runs everywhere (TestFullDisk fills a real filesystem where it can). A
// write through the Service then fails with data_dir_unusable saying the
// disk is full; none of it is stored; what was written before reads back,
// through the same store and through a new reader; and once the database
// may grow again, the same store writes.
func TestWriteWhenTheDatabaseCannotGrow(t *testing.T) {
	dir, st, svc, ana, room := openSeeded(t)
	ctx := context.Background()
	readBack := func(notes []string) {
		t.Helper()
		got, err := readNotes(st)
		if err != nil || !slices.Equal(got, notes) {
			t.Fatalf("the store reads back %q, %v; want %q", got, err, notes)
		}
		want{notes: notes}.check(t, dir, attempt(openReader, dir))
	}

	limit, err := store.SetMaxPageCount(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.SetMaxPageCount(st, 1); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a note longer than the free space of any page. ", stick.MaxNoteLen/64)
	_, err = svc.AppendNote(ctx, ana, room, big)
	want{code: stick.CodeDataDir, msg: "is full", hint: "free some space"}.check(t, dir, describe(err))
	readBack(seededNotes)

	if _, err := store.SetMaxPageCount(st, limit); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.AppendNote(ctx, ana, room, big); err != nil {
		t.Fatalf("a write after the database may grow again: %v", err)
	}
	readBack(append(slices.Clone(seededNotes), big))
}
