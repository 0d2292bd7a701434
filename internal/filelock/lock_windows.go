//go:build windows

package filelock

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// Lock is an exclusive lock (LockFileEx) on one file. Windows drops it when
// its process dies, so a killed holder never leaves it taken. One Lock
// serves one goroutine at a time.
type Lock struct {
	path string
	f    *os.File
}

// Open opens (creating it if needed) the lock file at path, unlocked.
func Open(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return &Lock{path: path, f: f}, nil
}

// Path is the lock file's path, for messages.
func (l *Lock) Path() string { return l.path }

// TryLock takes the lock if it is free and reports whether it did.
func (l *Lock) TryLock() (bool, error) {
	err := l.lock(windows.LOCKFILE_EXCLUSIVE_LOCK | windows.LOCKFILE_FAIL_IMMEDIATELY)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

// Lock blocks until the lock is had.
func (l *Lock) Lock() error { return l.lock(windows.LOCKFILE_EXCLUSIVE_LOCK) }

// Unlock releases the lock.
func (l *Lock) Unlock() {
	_ = windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// Close closes the lock file, which also releases the lock.
func (l *Lock) Close() error { return l.f.Close() }

func (l *Lock) lock(flags uint32) error {
	return windows.LockFileEx(windows.Handle(l.f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
}
