//go:build unix || windows

package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/stickhq/stick/internal/ownerfs"
)

// Lock is an exclusive lock on one file, taken through the operating
// system (flock, LockFileEx), which drops it when its process dies: a
// killed holder never leaves it taken. One Lock serves one goroutine at a
// time.
type Lock struct {
	path string
	f    *os.File
}

// Open opens (creating it if needed) the lock file at path, unlocked. It
// never opens it through a symbolic link, and the file is owner-only.
func Open(path string) (*Lock, error) {
	f, err := ownerfs.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return &Lock{path: path, f: f}, nil
}

// Path is the lock file's path, for messages.
func (l *Lock) Path() string { return l.path }

// TryLock takes the lock if it is free and reports whether it did.
func (l *Lock) TryLock() (bool, error) {
	err := l.lock(true)
	if wouldBlock(err) {
		return false, nil
	}
	return err == nil, err
}

// Lock blocks until the lock is had.
func (l *Lock) Lock() error { return l.lock(false) }

// Current reports whether the file at Path is still the one this Lock
// opened. A holder that removes its lock file before closing it leaves
// anyone who opened the file in between holding a lock on a removed file;
// such a locker sees Current false and must open the path again.
func (l *Lock) Current() bool {
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(l.path)
	return err == nil && os.SameFile(held, now)
}

// Close closes the lock file, which also releases the lock.
func (l *Lock) Close() error { return l.f.Close() }

// ErrTimeout is LockWithin's error when another process held the lock for
// the whole time allowed.
var ErrTimeout = errors.New("another process held the lock all along")

// LockWithin takes the lock, trying again every few milliseconds, until it
// has it, ctx ends (ctx's error) or d passes (ErrTimeout). Unlike Lock it
// never waits for a holder that does not let go.
func (l *Lock) LockWithin(ctx context.Context, d time.Duration) error {
	deadline := time.Now().Add(d)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		ok, err := l.TryLock()
		if err != nil || ok {
			return err
		}
		if time.Now().Add(delay).After(deadline) {
			return ErrTimeout
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}
