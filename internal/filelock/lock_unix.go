//go:build unix

package filelock

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Lock is an exclusive advisory lock (flock) on one file. The kernel drops
// it when its process dies, so a SIGKILLed holder never leaves it taken.
// One Lock serves one goroutine at a time.
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
	err := l.flock(unix.LOCK_EX | unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// Lock blocks until the lock is had.
func (l *Lock) Lock() error { return l.flock(unix.LOCK_EX) }

// Unlock releases the lock.
func (l *Lock) Unlock() { _ = l.flock(unix.LOCK_UN) }

// Close closes the lock file, which also releases the lock.
func (l *Lock) Close() error { return l.f.Close() }

// flock runs flock on the file, holding a reference to the descriptor so a
// concurrent close waits for it, and retrying on EINTR.
func (l *Lock) flock(how int) error {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = unix.Flock(int(fd), how); !errors.Is(ferr, unix.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}
