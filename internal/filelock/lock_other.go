//go:build !unix && !windows

package filelock

import (
	"context"
	"errors"
	"time"
)

// Lock is a no-op where flock is not available: callers then rely on their
// other means of serialising (SQLite's busy handler, atomic renames).
type Lock struct{ path string }

// Open returns a lock that never blocks.
func Open(path string) (*Lock, error) { return &Lock{path: path}, nil }

// Path is the lock file's path, for messages.
func (l *Lock) Path() string { return l.path }

// TryLock always succeeds.
func (l *Lock) TryLock() (bool, error) { return true, nil }

// Lock returns at once.
func (l *Lock) Lock() error { return nil }

// ErrTimeout is LockWithin's error when another process held the lock for
// the whole time allowed; here it never happens.
var ErrTimeout = errors.New("another process held the lock all along")

// LockWithin returns at once.
func (l *Lock) LockWithin(context.Context, time.Duration) error { return nil }

// Holder returns 0: no process is known to hold the lock.
func Holder(string) int { return 0 }

// Unlock does nothing.
func (l *Lock) Unlock() {}

// Current always reports true.
func (l *Lock) Current() bool { return true }

// Close does nothing.
func (l *Lock) Close() error { return nil }
