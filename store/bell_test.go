package store

import (
	"context"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// TestCommitRingsOtherStores: a write through one store wakes a waiter of
// another store on the same file (as another process would be) by its
// bell, with the fallback poll an hour away.
func TestCommitRingsOtherStores(t *testing.T) {
	dir := t.TempDir()
	open := func() *Store {
		st, err := OpenDir(dir, Options{FallbackPoll: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := open(), open()
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
