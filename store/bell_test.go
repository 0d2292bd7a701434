package store

import (
	"context"
	"errors"
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
