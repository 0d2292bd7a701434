package web

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
)

// feeds share the watches of live pages: every page that shows the same
// thing to the same principal (a room's roster, the list of rooms) waits
// on one watch (stick.Service.WatchState, WatchRooms), which the store's
// wake-ups, the deadlines of the rooms' states and their members'
// process exits end. So a commit costs one read per room shown, however
// many pages show it, and an idle page costs nothing.
type feeds struct {
	mu sync.Mutex
	m  map[string]*feed
	// done ends every feed when the hub stops.
	done <-chan struct{}
}

// feedGap is the least time between two reads of one feed: a burst of
// commits is read once at its end, at most this late.
const feedGap = 50 * time.Millisecond

// feed is one shared watch, and what it last read.
type feed struct {
	subs   int
	cancel context.CancelFunc
	mu     sync.Mutex
	val    any
	err    error
	// wake is closed, and replaced, when val or err is new.
	wake chan struct{}
}

// watchFunc reads what a feed shows, and returns the channel that closes
// once it may have changed.
type watchFunc func(ctx context.Context) (any, <-chan struct{}, error)

// subscribe joins the feed named key, starting it with watch when it has
// no other page: it returns the feed, and the function that leaves it
// (the last page to leave stops it).
func (fs *feeds) subscribe(key string, watch watchFunc) (*feed, func()) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m == nil {
		fs.m = map[string]*feed{}
	}
	f := fs.m[key]
	if f == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f = &feed{cancel: cancel, wake: make(chan struct{})}
		fs.m[key] = f
		go func() {
			f.run(ctx, watch, fs.done)
			fs.drop(key, f)
		}()
	}
	f.subs++
	var once sync.Once
	return f, func() {
		once.Do(func() {
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if f.subs--; f.subs == 0 {
				f.cancel()
				if fs.m[key] == f {
					delete(fs.m, key)
				}
			}
		})
	}
}

// drop forgets the feed f named key, which ended: a page that comes
// later starts a fresh one.
func (fs *feeds) drop(key string, f *feed) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m[key] == f {
		delete(fs.m, key)
	}
}

// The backoff of a feed whose read failed for a while (db_busy, a
// database server out of reach, a read the store canceled): the first retry after feedRetry, each next one
// twice as late, up to feedRetryMax.
const (
	feedRetry    = 100 * time.Millisecond
	feedRetryMax = 5 * time.Second
)

// retryable reports whether a failed read may succeed if tried again:
// the store was busy or its database server out of reach, or it canceled
// the read (a busy timeout) though the feed goes on.
func retryable(err error) bool {
	switch stick.ErrorCode(err) {
	case stick.CodeDBBusy, stick.CodeDBUnavailable, stick.CodeCanceled:
		return true
	}
	return false
}

// run reads with watch, publishes what it read, and waits for the watch
// to wake, until ctx ends, the hub stops, or a read fails for good: a
// read that fails for a while (retryable) is tried again after a backoff,
// the pages showing what they showed; any other failure is published, and
// ends the pages' streams (their browsers reconnect to a fresh feed).
func (f *feed) run(ctx context.Context, watch watchFunc, done <-chan struct{}) {
	last := time.Time{}
	backoff := time.Duration(0)
	for {
		if backoff > 0 {
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
			case <-done:
			case <-t.C:
			}
			t.Stop()
		}
		if wait := feedGap - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
			case <-done:
			case <-t.C:
			}
			t.Stop()
		}
		if ctx.Err() != nil || closed(done) {
			f.publish(nil, context.Canceled)
			return
		}
		last = time.Now()
		wctx, cancel := context.WithCancel(ctx)
		val, changed, err := watch(wctx)
		if err != nil && retryable(err) && ctx.Err() == nil && !closed(done) {
			cancel()
			backoff = min(max(2*backoff, feedRetry), feedRetryMax)
			continue
		}
		backoff = 0
		f.publish(val, err)
		if err != nil {
			cancel()
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
		case <-done:
		}
		cancel()
	}
}

// publish makes val (or err) the feed's news and wakes its pages.
func (f *feed) publish(val any, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.val, f.err = val, err
	close(f.wake)
	f.wake = make(chan struct{})
}

// latest returns what the feed last read (nil before its first read),
// the channel that closes when it has news, and the error that ended it.
func (f *feed) latest() (any, <-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.val, f.wake, f.err
}

// closed reports whether done is closed; a nil done never is.
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// feedKey names a feed: what it shows (a room's id, "" for the list of
// rooms) to which principal, whose role and rooms decide what it reads.
func feedKey(p stick.Principal, room string) string {
	b, _ := json.Marshal(p)
	return string(b) + "\x00" + room
}
