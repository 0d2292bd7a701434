package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// fsHub is the one filesystem watcher of the process. Every store's
// commit watcher and bells share it, so a process spends one inotify
// instance however many stores and waiters it has (instances are limited
// per user, usually to 128; a process that could not get one would fall
// back to polling and hand the stick over in about a second instead of a
// few milliseconds). The underlying watcher exists while anyone
// subscribes; when none does it is closed.
var fsHub = &hub{paths: make(map[string]map[*fsSub]bool)}

// hub multiplexes one fsnotify.Watcher: each subscription adds paths and
// receives the events for them (a watched directory's events are those of
// its entries) on its own channels.
type hub struct {
	mu    sync.Mutex
	fsw   *fsnotify.Watcher
	subs  map[*fsSub]bool
	paths map[string]map[*fsSub]bool // watched path -> subscriptions that asked for it
	done  chan struct{}              // closed when the current dispatcher returns
	warn  sync.Once
	// testFail makes creating the watcher fail, for tests.
	testFail bool
}

// fsSub is one subscription to the hub. Events for its paths arrive on
// Events; Errors reports a lost event (an overflow, here or in the kernel)
// or the end of the watch, after which the subscriber should re-check
// whatever it watches. Both are buffered and never block the hub: an event
// that does not fit is reported as an error instead.
type fsSub struct {
	h      *hub
	Events chan fsnotify.Event
	Errors chan error
	closed bool
	// deliver, when set, receives the events instead of Events: called by
	// the hub's goroutine, outside its lock, it must not block. It spares
	// a subscriber whose handling is a few map lookups a goroutine of its
	// own, and a wake-up its hand-over would cost.
	deliver func(fsnotify.Event)
}

// errLost is sent on Errors when events may have been lost.
var errLost = fmt.Errorf("file events lost")

// subscribe returns a new subscription, creating the process's watcher if
// there is none. It fails when no watcher can be had (for example with
// the inotify instance limit reached); the first such failure is reported
// once on standard error, since waiting then falls back to polling.
func (h *hub) subscribe() (*fsSub, error) { return h.subscribeFunc(nil) }

// subscribeFunc is subscribe with the events handed to deliver (see
// fsSub.deliver) when it is not nil.
func (h *hub) subscribeFunc(deliver func(fsnotify.Event)) (*fsSub, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fsw == nil {
		fsw, err := h.newWatcher()
		if err != nil {
			h.warnOnce(err)
			return nil, err
		}
		h.fsw, h.subs, h.done = fsw, make(map[*fsSub]bool), make(chan struct{})
		go h.run(fsw, h.done)
	}
	s := &fsSub{h: h, Events: make(chan fsnotify.Event, 64), Errors: make(chan error, 1), deliver: deliver}
	h.subs[s] = true
	return s, nil
}

func (h *hub) newWatcher() (*fsnotify.Watcher, error) {
	if h.testFail {
		return nil, fmt.Errorf("too many open files")
	}
	return fsnotify.NewWatcher()
}

// warnOnce says, once per process, that files cannot be watched.
func (h *hub) warnOnce(err error) {
	h.warn.Do(func() {
		fmt.Fprintf(os.Stderr, "stick: cannot watch files for changes (%v); waiting falls back to polling, so a handoff may take about a second: %s\n", err, WatchHint)
	})
}

// WatchHint says how to lift the limit that usually stops file watching.
const WatchHint = "raise the per-user inotify limits (sysctl fs.inotify.max_user_instances and fs.inotify.max_user_watches), or stop idle stick processes"

// Add watches path for s. Adding a path twice is harmless. The hub's lock
// is not held while the watch is added: on some platforms that waits for
// the goroutine that delivers events.
func (s *fsSub) Add(path string) error {
	path = filepath.Clean(path)
	h := s.h
	h.mu.Lock()
	fsw := h.fsw
	if s.closed || fsw == nil {
		h.mu.Unlock()
		return fmt.Errorf("watching %s: watch closed", path)
	}
	h.mu.Unlock()
	if err := fsw.Add(path); err != nil {
		h.warnOnce(err)
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.closed || h.fsw != fsw {
		return fmt.Errorf("watching %s: watch closed", path)
	}
	if h.paths[path] == nil {
		h.paths[path] = make(map[*fsSub]bool)
	}
	h.paths[path][s] = true
	return nil
}

// Remove stops watching path for s; the watch itself goes when no
// subscription wants the path any more.
func (s *fsSub) Remove(path string) error {
	path = filepath.Clean(path)
	h := s.h
	h.mu.Lock()
	fsw, gone := h.fsw, h.drop(s, path)
	h.mu.Unlock()
	if gone && fsw != nil {
		return fsw.Remove(path)
	}
	return nil
}

// drop removes s's interest in path and reports whether nobody wants the
// path any more. h.mu must be held.
func (h *hub) drop(s *fsSub, path string) bool {
	subs := h.paths[path]
	if !subs[s] {
		return false
	}
	delete(subs, s)
	if len(subs) > 0 {
		return false
	}
	delete(h.paths, path)
	return true
}

// Close ends the subscription: its paths are unwatched (unless others
// watch them) and, with the last subscription, the process's watcher is
// closed. Its channels are not closed. Idempotent.
func (s *fsSub) Close() error {
	h := s.h
	h.mu.Lock()
	if s.closed {
		h.mu.Unlock()
		return nil
	}
	s.closed = true
	var unwatch []string
	for path, subs := range h.paths {
		if subs[s] && h.drop(s, path) {
			unwatch = append(unwatch, path)
		}
	}
	delete(h.subs, s)
	fsw, done := h.fsw, h.done
	last := len(h.subs) == 0 && fsw != nil
	if last {
		h.fsw, h.subs = nil, nil
		h.paths = make(map[string]map[*fsSub]bool)
	}
	h.mu.Unlock()
	if fsw == nil {
		return nil
	}
	if last {
		err := fsw.Close()
		<-done
		return err
	}
	for _, p := range unwatch {
		_ = fsw.Remove(p) // gone already, with its file, or not: either way unwatched
	}
	return nil
}

// run delivers the watcher's events to the subscriptions of the path and
// of its directory, until the watcher is closed.
func (h *hub) run(fsw *fsnotify.Watcher, done chan struct{}) {
	defer close(done)
	var calls []func(fsnotify.Event)
	for {
		select {
		case ev, ok := <-fsw.Events:
			if !ok {
				h.fail(fsw)
				return
			}
			h.mu.Lock()
			calls = calls[:0]
			for _, p := range [2]string{ev.Name, filepath.Dir(ev.Name)} {
				for s := range h.paths[p] {
					if s.deliver != nil {
						calls = append(calls, s.deliver)
						continue
					}
					select {
					case s.Events <- ev:
					default:
						lost(s)
					}
				}
			}
			if ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
				// The watch of a removed path went with it; whoever wants
				// it again adds it again.
				delete(h.paths, ev.Name)
			}
			h.mu.Unlock()
			for _, deliver := range calls {
				deliver(ev)
			}
		case _, ok := <-fsw.Errors:
			if !ok {
				h.fail(fsw)
				return
			}
			h.mu.Lock()
			for s := range h.subs {
				lost(s)
			}
			h.mu.Unlock()
		}
	}
}

// fail tells every subscription of fsw that its events ended.
func (h *hub) fail(fsw *fsnotify.Watcher) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fsw != fsw {
		return // closed by the last subscription
	}
	for s := range h.subs {
		lost(s)
	}
}

// lost reports on s that events may have been lost.
func lost(s *fsSub) {
	select {
	case s.Errors <- errLost:
	default:
	}
}
