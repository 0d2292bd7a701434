package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// Two Stores on one file queue their writes like two processes: a writer
// waits for the other's transaction, gives up with db_busy after the busy
// timeout (saying how long it waited), ends at once when its context ends,
// and the lock is usable again afterwards.
func TestWritersQueueAcrossStores(t *testing.T) {
	dir := t.TempDir()
	a, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.OpenDir(dir, store.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	hold, holding := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Update(ctx, func(stick.Tx) error { close(holding); <-hold; return nil })
	}()
	<-holding

	start := time.Now()
	err = b.Update(ctx, func(stick.Tx) error { return nil })
	se := wantCode(t, err, stick.CodeDBBusy)
	if waited, _ := se.Details["waited_ms"].(int64); waited < 100 || time.Since(start) < 100*time.Millisecond {
		t.Fatalf("db_busy must come after the busy timeout and say so: %+v", se)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := b.Update(cctx, func(stick.Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled writer must stop waiting: %v", err)
	}

	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The abandoned requests drop the lock when they get it; b can write again.
	if err := b.Update(ctx, func(stick.Tx) error { return nil }); err != nil {
		t.Fatalf("after the holder finished: %v", err)
	}
	if err := a.Update(ctx, func(stick.Tx) error { return nil }); err != nil {
		t.Fatalf("a again: %v", err)
	}
}

// A queued writer proceeds the moment the lock is free, not after a back-off.
func TestQueuedWriterWakesAtOnce(t *testing.T) {
	dir := t.TempDir()
	a, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	hold, holding := make(chan struct{}), make(chan struct{})
	go a.Update(ctx, func(stick.Tx) error { close(holding); <-hold; return nil })
	<-holding
	got := make(chan time.Time, 1)
	go func() {
		if err := b.Update(ctx, func(stick.Tx) error { return nil }); err != nil {
			t.Error(err)
		}
		got <- time.Now()
	}()
	time.Sleep(300 * time.Millisecond) // b is queued well past SQLite's largest back-off step
	released := time.Now()
	close(hold)
	select {
	case at := <-got:
		t.Logf("queued writer proceeded %v after release", at.Sub(released))
	case <-time.After(5 * time.Second):
		t.Fatal("queued writer never proceeded")
	}
}
