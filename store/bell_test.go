package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// TestCommitRingsOtherStores: a write through one store wakes a waiter of
// another store on the same file (as another process would be) by its
// bell, with the fallback poll an hour away.
func TestCommitRingsOtherStores(t *testing.T) {
	a, b := openPair(t)
	if a.watch.mode() != "notify" {
		t.Skipf("filesystem notifications unavailable here (mode %q)", a.watch.mode())
	}
	for i := range 20 {
		ch := a.Changed()
		err := b.Update(context.Background(), func(tx stick.Tx) error {
			return tx.CreateRoom(stick.Room{ID: "room_" + string(rune('a'+i)), Path: "/w/" + string(rune('a'+i)), State: stick.StateIdle})
		})
		if err != nil {
			t.Fatal(err)
		}
		waitClosed(t, ch, "commit through another store")
	}
}

// TestBellsWakeOnlyWhomTheyConcern: a commit that rings agent a's bell in
// a room wakes a's waiter in another store on the same file (as another
// process would be), not b's and not the room's; a rolled-back
// transaction rings nothing; closing the store wakes its waiters.
func TestBellsWakeOnlyWhomTheyConcern(t *testing.T) {
	writer, waiter := openPair(t)
	a, b, room := waiter.Rung("room_1", "a"), waiter.Rung("room_1", "b"), waiter.Rung("room_1", "")
	if a == nil || b == nil || room == nil {
		t.Skip("bells cannot be watched here")
	}
	ctx := context.Background()
	if err := writer.Update(ctx, func(tx stick.Tx) error {
		tx.Ring("room_1", "b")
		return errors.New("roll back")
	}); err == nil {
		t.Fatal("the update did not fail")
	}
	if err := writer.Update(ctx, func(tx stick.Tx) error {
		tx.Ring("room_2", "") // another room's bell
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := writer.Update(ctx, func(tx stick.Tx) error {
		tx.Ring("room_1", "a")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, a, "a's bell")
	// Rings arrive in order: had the rolled-back one rung b's bell, or the
	// other room's rung this room's, they would have arrived first.
	if isClosed(b) || isClosed(room) {
		t.Fatalf("a ring of a's bell woke b's (%v) or the room's (%v)", isClosed(b), isClosed(room))
	}
	if again := waiter.Rung("room_1", "a"); isClosed(again) {
		t.Fatal("a rang bell stays rung")
	}
	waiter.Close()
	waitClosed(t, b, "b's bell at close")
	waitClosed(t, room, "the room's bell at close")
}

// openPair opens two stores on one new database, as two processes would,
// with the fallback poll an hour away so that only notifications wake.
func openPair(t *testing.T) (*Store, *Store) {
	t.Helper()
	dir := t.TempDir()
	open := func() *Store {
		st, err := OpenDir(dir, Options{FallbackPoll: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return open(), open()
}

// TestDeletedBellIsWatchedAgain: a bell file removed from under a waiter
// wakes it, and the next wait watches the new file, so later rings still
// arrive; a ring of a bell nobody ever waited on creates no file.
func TestDeletedBellIsWatchedAgain(t *testing.T) {
	writer, waiter := openPair(t)
	ch := waiter.Rung("room_1", "a")
	if ch == nil {
		t.Skip("bells cannot be watched here")
	}
	entries, err := os.ReadDir(waiter.bells.dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("bells before: %v %v", entries, err)
	}
	if err := os.Remove(filepath.Join(waiter.bells.dir, entries[0].Name())); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ch, "removal of the bell's file")
	ch = waiter.Rung("room_1", "a")
	ctx := context.Background()
	if err := writer.Update(ctx, func(tx stick.Tx) error {
		tx.Ring("room_1", "a")
		tx.Ring("room_1", "nobody")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ch, "a ring after the file came back")
	if entries, _ := os.ReadDir(waiter.bells.dir); len(entries) != 1 {
		t.Fatalf("%d bell files, want 1: a ring must not create the file of a bell nobody waits on", len(entries))
	}
}

// TestBellsNeverFollowLinks: a bell file planted as a link to another file
// is neither watched nor written through when rung.
func TestBellsNeverFollowLinks(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := openBells(filepath.Join(t.TempDir(), DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	name := bellName("room_a", "alice")
	if err := os.Symlink(victim, filepath.Join(b.dir, name)); err != nil {
		t.Fatal(err)
	}
	if ch := b.rung("room_a", "alice"); ch != nil {
		t.Error("a bell planted as a link is watched")
	}
	b.ring([]string{name})
	if data, _ := os.ReadFile(victim); string(data) != "precious" {
		t.Fatalf("ringing wrote through the link: %q", data)
	}
}
