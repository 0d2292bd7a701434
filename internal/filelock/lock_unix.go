//go:build unix

package filelock

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Unlock releases the lock.
func (l *Lock) Unlock() { _ = l.flock(unix.LOCK_UN) }

func (l *Lock) lock(try bool) error {
	if try {
		return l.flock(unix.LOCK_EX | unix.LOCK_NB)
	}
	return l.flock(unix.LOCK_EX)
}

func wouldBlock(err error) bool { return errors.Is(err, unix.EWOULDBLOCK) }

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
