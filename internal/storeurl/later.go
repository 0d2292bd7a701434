package storeurl

import (
	"context"
	"sync"

	"github.com/stickhq/stick/stick"
)

// Later is a store that opens in the background, as store.Background does
// for SQLite: 'stick mcp' answers the harness's initialize at once, and
// every transaction waits for the open and reports its error.
type Later struct {
	open  func() (stick.Store, error)
	start sync.Once
	done  chan struct{}
	st    stick.Store
	err   error
}

// OpenLater returns a Later that runs open once started or first used.
func OpenLater(open func() (stick.Store, error)) *Later {
	return &Later{open: open, done: make(chan struct{})}
}

// Start starts the open in its own goroutine, if it has not started.
func (l *Later) Start() {
	l.start.Do(func() {
		go func() {
			defer close(l.done)
			l.st, l.err = l.open()
		}()
	})
}

// Ready waits for the open, or for ctx to end first, and returns the
// error the open failed with.
func (l *Later) Ready(ctx context.Context) error {
	_, err := l.ready(ctx)
	return err
}

func (l *Later) ready(ctx context.Context) (stick.Store, error) {
	l.Start()
	select {
	case <-l.done:
		return l.st, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Update runs the store's Update once it is open.
func (l *Later) Update(ctx context.Context, fn func(stick.Tx) error) error {
	st, err := l.ready(ctx)
	if err != nil {
		return err
	}
	return st.Update(ctx, fn)
}

// View runs the store's View once it is open.
func (l *Later) View(ctx context.Context, fn func(stick.Tx) error) error {
	st, err := l.ready(ctx)
	if err != nil {
		return err
	}
	return st.View(ctx, fn)
}

// Changed is the store's Changed once it is open; nil (a channel that
// never fires) when the open failed, whose error every transaction
// reports.
func (l *Later) Changed() <-chan struct{} {
	if st, err := l.ready(context.Background()); err == nil {
		return st.Changed()
	}
	return nil
}

// Rung is the store's Rung once it is open; nil when the open failed.
func (l *Later) Rung(room, agent string) <-chan struct{} {
	if st, err := l.ready(context.Background()); err == nil {
		return st.Rung(room, agent)
	}
	return nil
}

// Close closes the store if it opened; a store whose open has not
// started is never opened.
func (l *Later) Close() error {
	l.start.Do(func() {
		l.err = stick.Errorf(stick.CodeInternal, "the store was closed before it was opened")
		close(l.done)
	})
	if st, err := l.ready(context.Background()); err == nil {
		return st.Close()
	}
	return nil
}
