package store

import (
	"context"
	"sync"

	"github.com/stickhq/stick/stick"
)

// Background is a stick.Store whose database opens in the background, so
// a server can start answering before the open (checking the data
// directory, migrating, starting the watcher) has finished. Every method
// waits for the open first; when it failed, every transaction fails with
// the open's own coded error, as the open itself would have.
type Background struct {
	open  func() (*Store, error)
	start sync.Once
	done  chan struct{}
	st    *Store
	err   error
}

var (
	_ stick.Store         = (*Background)(nil)
	_ stick.BriefViewer   = (*Background)(nil)
	_ stick.BriefViewer   = (*Store)(nil)
	_ stick.SearchIndexer = (*Background)(nil)
	_ stick.SearchIndexer = (*Store)(nil)
)

// OpenInBackground starts open in its own goroutine and returns at once.
func OpenInBackground(open func() (*Store, error)) *Background {
	b := OpenLater(open)
	b.Start()
	return b
}

// OpenLater returns a Background whose open starts at Start, or at the
// first method that needs the store, so a server can leave the cores to
// its own start-up until then.
func OpenLater(open func() (*Store, error)) *Background {
	return &Background{open: open, done: make(chan struct{})}
}

// Start starts the open in its own goroutine, if it has not started.
func (b *Background) Start() {
	b.start.Do(func() {
		go func() {
			defer close(b.done)
			b.st, b.err = b.open()
		}()
	})
}

// Wait starts the open if needed and returns the opened store, or the
// error the open failed with, once the open has finished.
func (b *Background) Wait() (*Store, error) {
	b.Start()
	<-b.done
	return b.st, b.err
}

// Ready waits for the open, or for ctx to end first, and returns the
// error the open failed with.
func (b *Background) Ready(ctx context.Context) error {
	_, err := b.ready(ctx)
	return err
}

// ready waits for the open, or for ctx to end first.
func (b *Background) ready(ctx context.Context) (*Store, error) {
	b.Start()
	select {
	case <-b.done:
		return b.st, b.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Update runs Store.Update once the store is open.
func (b *Background) Update(ctx context.Context, fn func(stick.Tx) error) error {
	st, err := b.ready(ctx)
	if err != nil {
		return err
	}
	return st.Update(ctx, fn)
}

// View runs Store.View once the store is open.
func (b *Background) View(ctx context.Context, fn func(stick.Tx) error) error {
	st, err := b.ready(ctx)
	if err != nil {
		return err
	}
	return st.View(ctx, fn)
}

// BriefView runs Store.BriefView once the store is open.
func (b *Background) BriefView(ctx context.Context, fn func(stick.Tx) error) error {
	st, err := b.ready(ctx)
	if err != nil {
		return err
	}
	return st.BriefView(ctx, fn)
}

// CatchUpSearch runs Store.CatchUpSearch once the store is open.
func (b *Background) CatchUpSearch(ctx context.Context) error {
	st, err := b.ready(ctx)
	if err != nil {
		return err
	}
	return st.CatchUpSearch(ctx)
}

// Changed is Store.Changed once the store is open; nil (a channel that
// never fires) when the open failed, whose error every transaction
// reports.
func (b *Background) Changed() <-chan struct{} {
	if st, err := b.Wait(); err == nil {
		return st.Changed()
	}
	return nil
}

// Rung is Store.Rung once the store is open; nil when the open failed.
func (b *Background) Rung(room, agent string) <-chan struct{} {
	if st, err := b.Wait(); err == nil {
		return st.Rung(room, agent)
	}
	return nil
}

// Close waits for the open and closes the store if it opened; a store
// whose open has not started is never opened.
func (b *Background) Close() error {
	b.start.Do(func() {
		b.err = stick.Errorf(stick.CodeInternal, "the store was closed before it was opened")
		close(b.done)
	})
	if st, err := b.Wait(); err == nil {
		return st.Close()
	}
	return nil
}
