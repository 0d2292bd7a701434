package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// A data directory that is a file: the store opening in the background
// fails every transaction with the very error OpenDir gives at once.
func TestBackgroundOpenFailureIsEveryTransactionsError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(dir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, want := store.OpenDir(dir, store.Options{})
	wantCode(t, want, stick.CodeDataDir)
	b := store.OpenInBackground(func() (*store.Store, error) { return store.OpenDir(dir, store.Options{}) })
	ctx := context.Background()
	for name, err := range map[string]error{
		"Ready":  b.Ready(ctx),
		"View":   b.View(ctx, func(stick.Tx) error { t.Fatal("View ran on a store that did not open"); return nil }),
		"Update": b.Update(ctx, func(stick.Tx) error { t.Fatal("Update ran on a store that did not open"); return nil }),
		"BriefView": b.BriefView(ctx, func(stick.Tx) error {
			t.Fatal("BriefView ran on a store that did not open")
			return nil
		}),
	} {
		if se := wantCode(t, err, stick.CodeDataDir); se.Message != want.(*stick.Error).Message || se.Hint != want.(*stick.Error).Hint {
			t.Errorf("%s: got %q (hint %q), want OpenDir's %q (hint %q)", name, se.Message, se.Hint, want.(*stick.Error).Message, want.(*stick.Error).Hint)
		}
	}
	if b.Changed() != nil || b.Rung("r", "") != nil {
		t.Error("a store that did not open offers a channel to wait on")
	}
	if err := b.Close(); err != nil {
		t.Errorf("Close after a failed open: %v", err)
	}
}

// A store opening in the background serves transactions once open, and
// a transaction whose context ends first returns without waiting.
func TestBackgroundOpenServesOnceOpen(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	b := store.OpenInBackground(func() (*store.Store, error) {
		<-release
		return store.OpenDir(dir, store.Options{})
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.View(ctx, func(stick.Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("View with an ended context while opening: %v", err)
	}
	close(release)
	var rooms []stick.Room
	if err := b.View(context.Background(), func(tx stick.Tx) (err error) {
		rooms, err = tx.RoomsUnder("", true)
		return err
	}); err != nil || len(rooms) != 0 {
		t.Fatalf("View once open: %v %v", rooms, err)
	}
	if err := b.BriefView(context.Background(), func(tx stick.Tx) (err error) {
		rooms, err = tx.RoomsUnder("", true)
		return err
	}); err != nil || len(rooms) != 0 {
		t.Fatalf("BriefView once open: %v %v", rooms, err)
	}
	if b.Changed() == nil {
		t.Error("an open store offers no change notifications")
	}
	st, err := b.Wait()
	if err != nil || st.Path() != filepath.Join(dir, store.DBFileName) {
		t.Fatalf("Wait: %v %v", st, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// A store opened later does not open until Start or its first use, and
// one closed before either is never opened.
func TestOpenLaterWaitsForStartOrUse(t *testing.T) {
	opens := make(chan struct{}, 2)
	open := func(dir string) func() (*store.Store, error) {
		return func() (*store.Store, error) {
			opens <- struct{}{}
			return store.OpenDir(dir, store.Options{})
		}
	}
	closed := store.OpenLater(open(t.TempDir()))
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	if len(opens) != 0 {
		t.Fatal("a store closed before it started was opened")
	}
	if err := closed.Ready(context.Background()); err == nil {
		t.Fatal("a store closed before it was opened is ready")
	}
	used := store.OpenLater(open(t.TempDir()))
	if len(opens) != 0 {
		t.Fatal("OpenLater opened at once")
	}
	if err := used.View(context.Background(), func(stick.Tx) error { return nil }); err != nil {
		t.Fatalf("View before Start: %v", err)
	}
	if len(opens) != 1 {
		t.Fatalf("%d opens after the first use, want 1", len(opens))
	}
	used.Start()
	if err := used.Close(); err != nil || len(opens) != 1 {
		t.Fatalf("Close: %v, %d opens", err, len(opens))
	}
}
