package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// defaultFallback is the slow poll interval used when newWatcher is given none.
const defaultFallback = time.Second

// recheckDelays are the pauses before re-reading data_version after a
// filesystem event that did not show a commit. A writer appends its frames
// to the -wal file (and, with synchronous=FULL, syncs it) before it publishes
// the commit in the shared-memory index, which no filesystem event reports;
// the event for the last write therefore usually arrives just before
// data_version moves. These few cheap re-reads catch the commit within about
// a millisecond without waiting for the fallback poll.
var recheckDelays = [...]time.Duration{
	250 * time.Microsecond,
	1 * time.Millisecond,
	4 * time.Millisecond,
	16 * time.Millisecond,
	64 * time.Millisecond,
	256 * time.Millisecond,
}

// watcher turns commits to one database file, made by any process or
// connection, into wake-ups, so waiters react within milliseconds instead of
// polling.
//
// A filesystem watch on the database's directory reports writes to the
// database's bell, which every stick writer rings after it commits (see
// Store.ring), and to the database and its -journal file. Writes to the -wal
// file are ignored: they come before SQLite publishes the commit, so a
// writer descheduled in between would leave a waiter to the fallback poll,
// and each commit makes several of them. PRAGMA data_version, read on a connection dedicated
// to the watcher, confirms that a commit happened, so checkpoints and other
// writes that commit nothing do not wake anyone. A slow fallback poll of
// data_version, run only while someone waits, bounds the cost of a missed
// filesystem event to latency. The watch is the process's one file watcher
// (fsHub), shared with the bells and every other store. If it cannot be set
// up (for example when inotify limits are exhausted), the watcher polls at
// the fallback interval instead, and the process says so once on stderr.
//
// Wake-ups may be spurious (a waiter must re-check the state it waits for),
// but a commit made after changed() is never missed.
type watcher struct {
	version  func() (int64, error)
	fallback time.Duration
	dir      string    // the database's directory, watched while anyone waits
	names    [3]string // base names of the database, its -journal and its bell

	fsw     *fsSub // the process's file watch (fsHub); nil when polling
	polling atomic.Bool
	// stale is set when commits were seen while nobody waited: data_version
	// is then not read (nobody would be woken), but the next waiter gets a
	// check, which wakes it at worst once for nothing.
	stale atomic.Bool

	mu     sync.Mutex
	ch     chan struct{} // closed at the next observed commit
	handed bool          // ch was returned by changed() and is not yet closed
	closed bool

	arm  chan struct{} // a first waiter arrived: start the fallback poll
	kick chan struct{} // notify() asks for data_version to be re-read
	quit chan struct{}
	done chan struct{} // closed when run returns

	closeOnce sync.Once

	gone func() bool // see watchFiles; guarded by mu

	last int64 // data_version at the last check; used only by run
}

// newWatcher starts watching dbPath's directory for commits to dbPath.
// version reports PRAGMA data_version from a connection dedicated to the
// watcher; it is called only from the watcher's own goroutine, never
// concurrently, and once before newWatcher returns to set the baseline.
// fallback is the slow poll interval (<= 0 means 1s). The directory must
// exist; the database file need not.
func newWatcher(dbPath string, version func() (int64, error), fallback time.Duration) (*watcher, error) {
	return startWatcher(dbPath, version, fallback, false)
}

// startWatcher is newWatcher with the option to skip the filesystem watch and
// poll, as happens when fsnotify is unavailable; tests use it to force that.
func startWatcher(dbPath string, version func() (int64, error), fallback time.Duration, forcePoll bool) (*watcher, error) {
	if version == nil {
		return nil, errors.New("watching database: no data_version function")
	}
	if fallback <= 0 {
		fallback = defaultFallback
	}
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, fmt.Errorf("watching database %q: %w", dbPath, err)
	}
	dir, base := filepath.Split(abs)
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("watching database %q: %w", dbPath, err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("watching database %q: %q is not a directory", dbPath, dir)
	}
	w := &watcher{
		version:  version,
		fallback: fallback,
		dir:      dir,
		names:    [3]string{base, base + "-journal", base + bellSuffix},
		ch:       make(chan struct{}),
		arm:      make(chan struct{}, 1),
		kick:     make(chan struct{}, 1),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	// The watch is set up before the baseline is read, so no commit can fall
	// between the two unseen.
	var (
		events <-chan fsnotify.Event
		errs   <-chan error
	)
	if !forcePoll {
		if fsw, err := fsHub.subscribe(); err == nil {
			if err := fsw.Add(dir); err == nil {
				w.fsw, events, errs = fsw, fsw.Events, fsw.Errors
			} else {
				_ = fsw.Close() // polling instead; subscribe and Add warned
			}
		}
	}
	w.polling.Store(w.fsw == nil)

	ready := make(chan error, 1)
	go w.run(events, errs, ready)
	if err := <-ready; err != nil {
		<-w.done
		if w.fsw != nil {
			_ = w.fsw.Close() // the version error is the one that matters
		}
		return nil, fmt.Errorf("watching database %q: reading data_version: %w", dbPath, err)
	}
	return w, nil
}

// changed returns a channel that is closed at the next commit observed after
// the call. Every caller gets the same channel until it closes (a broadcast);
// after that a new call returns a fresh channel. Callers should call changed
// before checking the state they wait for, then wait on the channel, so that
// a commit in between is not lost. After close the channel is already closed.
func (w *watcher) changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.handed && !w.closed {
		w.handed = true
		select {
		case w.arm <- struct{}{}:
		default:
		}
	}
	return w.ch
}

// notify reports a commit made in this process, after it has committed, so
// that in-process waiters wake at once instead of waiting for the filesystem
// event. It also has the watcher re-read data_version, which usually absorbs
// the commit so its filesystem event does not wake anyone again; if the event
// is handled first and a waiter has called changed() since, that waiter gets
// one spurious wake-up. notify never blocks.
func (w *watcher) notify() {
	if !w.broadcast() {
		// Nobody waits: a goroutine woken to read data_version would
		// only mark it stale.
		w.stale.Store(true)
		return
	}
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// watchFiles has the fallback poll call gone at each tick while anyone
// waits, and wake the waiters when it reports true: the database's files
// were deleted or replaced, which no commit will ever report, and the
// waiters' next read says so (see Store.replaced).
func (w *watcher) watchFiles(gone func() bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gone = gone
}

// filesGone calls the function given to watchFiles, if any.
func (w *watcher) filesGone() bool {
	w.mu.Lock()
	gone := w.gone
	w.mu.Unlock()
	return gone != nil && gone()
}

// mode reports how the watcher learns of commits from other connections,
// for diagnostics: "notify" (filesystem events plus a slow poll) or "poll".
func (w *watcher) mode() string {
	if w.polling.Load() {
		return "poll"
	}
	return "notify"
}

// close stops the watcher's goroutine and filesystem watch and wakes all
// waiters. It is idempotent; only the first call can return an error.
func (w *watcher) close() error {
	var err error
	w.closeOnce.Do(func() {
		close(w.quit)
		<-w.done
		if w.fsw != nil {
			if cerr := w.fsw.Close(); cerr != nil {
				err = fmt.Errorf("closing database watch: %w", cerr)
			}
		}
		w.mu.Lock()
		w.closed = true
		close(w.ch) // broadcast replaces a closed channel, so ch is open here
		w.mu.Unlock()
	})
	return err
}

// broadcast closes the current channel if anyone holds it, waking them,
// and reports whether it did.
func (w *watcher) broadcast() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handed && !w.closed {
		close(w.ch)
		w.ch = make(chan struct{})
		w.handed = false
		return true
	}
	return false
}

// waiting reports whether someone holds an un-fired channel from changed.
func (w *watcher) waiting() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.handed && !w.closed
}

// check re-reads data_version and wakes waiters if it moved. It reports
// whether it woke them; an error reading the version also wakes them, since
// a spurious wake-up is harmless and a missed commit is not.
//
// Versions read while nobody waits are absorbed silently: the read happens
// before broadcast takes the lock, so any changed() call that broadcast does
// not see comes after the read, and the commits absorbed came before it.
func (w *watcher) check() bool {
	v, err := w.version()
	if err == nil && v == w.last {
		return false
	}
	if err == nil {
		w.last = v
	}
	w.broadcast()
	return true
}

// relevant reports whether ev concerns the database, its -journal file or
// its bell. Names are compared case-insensitively for the benefit of
// macOS and Windows; a false match costs one data_version read.
func (w *watcher) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	base := filepath.Base(ev.Name)
	for _, n := range w.names {
		if strings.EqualFold(base, n) {
			return true
		}
	}
	return false
}

// run is the watcher's goroutine: it reads the baseline data_version, reports
// on ready, then checks data_version after filesystem events, notify calls,
// and fallback polls while anyone waits, until quit is closed.
func (w *watcher) run(events <-chan fsnotify.Event, errs <-chan error, ready chan<- error) {
	defer close(w.done)
	v, err := w.version()
	if err != nil {
		ready <- err
		return
	}
	w.last = v
	ready <- nil

	poll := time.NewTimer(w.fallback)
	poll.Stop()
	defer poll.Stop()
	var pollC <-chan time.Time // non-nil while the fallback poll runs

	recheck := time.NewTimer(recheckDelays[0])
	recheck.Stop()
	defer recheck.Stop()
	var recheckC <-chan time.Time // non-nil while a recheck is pending
	step := 0

	stopWatching := func() {
		events, errs = nil, nil
		w.polling.Store(true)
	}
	// Where adding and removing a watch are plain system calls (Linux), the
	// directory is watched only while someone waits, or did within the
	// fallback interval, so that a process whose waiters all wait on bells
	// (or that waits for nothing) is not woken by every commit on the
	// machine. Commits made while it is not watched are found by the check
	// when it is watched again; if the watch cannot be added back, the
	// fallback poll serves that wait and the next one tries again.
	watching := events != nil
	lazy := watching && runtime.GOOS == "linux"
	idle := time.NewTimer(w.fallback)
	idle.Stop()
	defer idle.Stop()
	var idleC <-chan time.Time // non-nil while an unwatch is pending
	waited := false            // someone has waited since the start
	for {
		if lazy && events != nil {
			want := w.waiting()
			waited = waited || want
			switch {
			case want && !watching:
				if w.fsw.Add(w.dir) == nil {
					watching = true
				}
				w.stale.Store(false)
				w.check()
			case want && idleC != nil:
				idle.Stop()
				idleC = nil
			case !want && watching && !waited:
				// Watched at the start only to learn that watching works.
				_ = w.fsw.Remove(w.dir)
				watching = false
			case !want && watching && idleC == nil:
				idle.Reset(w.fallback)
				idleC = idle.C
			}
		}
		if pollC == nil && w.waiting() {
			poll.Reset(w.fallback)
			pollC = poll.C
		}
		select {
		case <-w.quit:
			return
		case <-idleC:
			idleC = nil
			if !w.waiting() {
				_ = w.fsw.Remove(w.dir)
				watching = false
				recheck.Stop()
				recheckC = nil
			}
		case <-w.arm:
			// A waiter arrived; the top of the loop starts the poll.
			if w.stale.Swap(false) {
				w.check()
			}
		case <-w.kick:
			if !w.waiting() {
				w.stale.Store(true)
				continue
			}
			w.check()
		case <-pollC:
			if w.waiting() {
				if !w.check() && w.filesGone() {
					w.broadcast()
				}
				poll.Reset(w.fallback)
			} else {
				pollC = nil
			}
		case <-recheckC:
			if !w.waiting() {
				w.stale.Store(true)
				recheckC = nil
				continue
			}
			if w.check() || step+1 >= len(recheckDelays) {
				recheckC = nil
			} else {
				step++
				recheck.Reset(recheckDelays[step])
			}
		case ev, ok := <-events:
			if !ok {
				stopWatching()
				continue
			}
			// Coalesce a burst: take every event already queued, then read
			// data_version once.
			relevant := w.relevant(ev)
		drain:
			for {
				select {
				case ev, ok := <-events:
					if !ok {
						stopWatching()
						break drain
					}
					relevant = relevant || w.relevant(ev)
				default:
					break drain
				}
			}
			if !relevant {
				continue
			}
			if !w.waiting() {
				w.stale.Store(true)
				recheck.Stop()
				recheckC = nil
				continue
			}
			if w.check() {
				recheck.Stop()
				recheckC = nil
			} else {
				step = 0
				recheck.Reset(recheckDelays[0])
				recheckC = recheck.C
			}
		case _, ok := <-errs:
			if !ok {
				stopWatching()
				continue
			}
			// An error such as a queue overflow may mean lost events.
			w.check()
		}
	}
}
