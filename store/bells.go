package store

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
	"github.com/stickhq/stick/internal/ownerfs"
)

// bellsSuffix names the directory beside the database that holds the bells.
const bellsSuffix = "-bells"

// bells wake the waiters a commit concerns and nobody else. A bell is a
// small file per room (everyone in it) or per member of a room; a writer
// rings the bells its transaction named after the commit, by writing a
// byte to each. A process watches, each through its own watch on the file
// (never on the directory) in the process's one file watcher (fsHub),
// only the bells its waiters wait on, so a commit that rings nobody's bell
// wakes no other process at all.
//
// A bell is not a guarantee: a writer killed between its commit and its
// ring never rings. Waiters on bells therefore also re-read now and then
// (see stick's WaitForTurn), and a bell that cannot be watched reports so,
// for the caller to fall back on Changed.
type bells struct {
	dir string

	mu sync.Mutex
	// fsw is subscribed by the first rung, so that a process that never
	// waits on a bell adds no watch for it; nil until then, or when files
	// cannot be watched (broken).
	fsw    *fsSub // a subscription to the process's file watcher (fsHub)
	broken bool
	m      map[string]*bell
	closed bool
	done   chan struct{} // closed when the event loop returns, if it ran
	quit   chan struct{} // closed by close, to end the event loop
}

// bell is one bell as this process sees it.
type bell struct {
	ch      chan struct{} // closed at the next ring
	handed  bool          // ch was returned by rung and is not yet closed
	watched bool
}

// openBells creates the bells directory.
func openBells(dbPath string) (*bells, error) {
	b := &bells{dir: dbPath + bellsSuffix, m: make(map[string]*bell), done: make(chan struct{}), quit: make(chan struct{})}
	if err := ownerfs.Subdir(b.dir); err != nil {
		return nil, err
	}
	return b, nil
}

// watcher returns the file watcher, starting it on first use; nil when
// it cannot be had. b.mu must be held.
func (b *bells) watcher() *fsSub {
	if b.fsw == nil && !b.broken {
		fsw, err := fsHub.subscribeFunc(b.handle)
		if err != nil {
			b.broken = true
			return nil
		}
		b.fsw = fsw
		go b.run(fsw)
	}
	return b.fsw
}

// bellName is the file name of agent's bell in room ("" for the room's).
func bellName(room, agent string) string {
	sum := sha256.Sum256([]byte(room + "\x00" + agent))
	return hex.EncodeToString(sum[:10])
}

// rung returns a channel closed at the next ring of the bell, or nil when
// the bell cannot be watched. The bell's file exists and is watched before
// it returns, so a ring after the caller's next read cannot be missed.
func (b *bells) rung(room, agent string) <-chan struct{} {
	name := bellName(room, agent)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	fsw := b.watcher()
	bl := b.m[name]
	if fsw == nil || bl == nil || !bl.watched {
		b.mu.Unlock()
		// Added without the lock: on some platforms Add waits for the
		// goroutine that delivers events, which may be waiting for it.
		if fsw == nil || !b.watch(fsw, name) {
			return nil
		}
		b.mu.Lock()
		if bl = b.m[name]; bl == nil {
			bl = &bell{ch: make(chan struct{})}
			b.m[name] = bl
		}
		bl.watched = true
	}
	defer b.mu.Unlock()
	bl.handed = true
	return bl.ch
}

// watch creates the bell's file if needed and watches it.
func (b *bells) watch(fsw *fsSub, name string) bool {
	path := filepath.Join(b.dir, name)
	f, err := ownerfs.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	return fsw.Add(path) == nil
}

// ring rings the named bells: this process's waiters at once, other
// processes' through their watches. A bell whose file does not exist has
// no waiter anywhere (waiters create it before they look at the room), so
// it is not created. A bell that cannot be written only costs its waiters
// latency.
func (b *bells) ring(names []string) {
	for _, name := range names {
		if f, err := os.OpenFile(filepath.Join(b.dir, name), os.O_WRONLY|ownerfs.NoFollow, 0); err == nil {
			_, _ = f.WriteAt([]byte{1}, 0)
			f.Close()
		}
		b.wake(name)
	}
}

// wake closes the bell's channel if anyone holds it.
func (b *bells) wake(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bl := b.m[name]; bl != nil && bl.handed {
		close(bl.ch)
		bl.ch, bl.handed = make(chan struct{}), false
	}
}

// wakeAll wakes every waiter on any bell: after a lost event, or at close.
func (b *bells) wakeAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, bl := range b.m {
		if bl.handed {
			close(bl.ch)
			bl.ch, bl.handed = make(chan struct{}), false
		}
	}
}

// handle takes an event of a bell's file, from the hub's goroutine.
func (b *bells) handle(ev fsnotify.Event) {
	name := filepath.Base(ev.Name)
	if ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
		// The watch went with the file: watch it anew next time,
		// and let its waiters look now.
		b.mu.Lock()
		if bl := b.m[name]; bl != nil {
			bl.watched = false
		}
		b.mu.Unlock()
	}
	if ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 {
		b.wake(name)
	}
}

// run wakes every waiter when events may have been lost; the events
// themselves reach handle.
func (b *bells) run(fsw *fsSub) {
	defer close(b.done)
	for {
		select {
		case <-b.quit:
			return
		case _, ok := <-fsw.Errors:
			if !ok {
				return
			}
			b.wakeAll() // an overflow may have lost rings
		}
	}
}

// close stops watching and wakes every waiter; idempotent.
func (b *bells) close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	fsw := b.fsw
	b.mu.Unlock()
	var err error
	if fsw != nil {
		close(b.quit)
		<-b.done
		err = fsw.Close()
	}
	b.wakeAll()
	return err
}
