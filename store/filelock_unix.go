//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// fileLock is an exclusive advisory lock (flock) on a file beside the
// database. The kernel drops it when its process dies, so a SIGKILLed writer
// never leaves the database locked.
type fileLock struct {
	path string
	f    *os.File
}

func openFileLock(path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	return &fileLock{path: path, f: f}, nil
}

// tryLock takes the lock if it is free and reports whether it did.
func (l *fileLock) tryLock() (bool, error) {
	err := l.flock(unix.LOCK_EX | unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// lock blocks until the lock is had.
func (l *fileLock) lock() error { return l.flock(unix.LOCK_EX) }

func (l *fileLock) unlock() { _ = l.flock(unix.LOCK_UN) }

func (l *fileLock) close() error { return l.f.Close() }

// flock runs flock on the file, holding a reference to the descriptor so a
// concurrent close waits for it, and retrying on EINTR.
func (l *fileLock) flock(how int) error {
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
