//go:build windows

package filelock

import (
	"errors"

	"golang.org/x/sys/windows"
)

// Unlock releases the lock.
func (l *Lock) Unlock() {
	_ = windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

func (l *Lock) lock(try bool) error {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if try {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	return windows.LockFileEx(windows.Handle(l.f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
}

func wouldBlock(err error) bool { return errors.Is(err, windows.ERROR_LOCK_VIOLATION) }
