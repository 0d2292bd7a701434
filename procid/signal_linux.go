//go:build linux

package procid

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// Signal sends sig to the exact process id and to no other: the pid is
// opened as a pidfd, the process behind it is checked against id's start
// time, and the signal goes through the pidfd, so a pid reused by another
// process is never signalled. It fails with an error wrapping ErrNoProcess
// when id is gone, and refuses identities it cannot prove alive (another
// host, facts unreadable).
func Signal(id Identity, sig syscall.Signal) error {
	if st, done := judgeHost(id); done {
		return signalRefused(id, st)
	}
	fd, err := openPidfd(id.PID)
	if errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("procid: %s: %w", id, ErrNoProcess)
	}
	if err != nil {
		return fmt.Errorf("procid: open %s: %w", id, err)
	}
	defer unix.Close(fd)
	facts, err := readProc(id.PID)
	if st := judgeProc(id, facts, err); st != Alive {
		return signalRefused(id, st)
	}
	if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil {
		if errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("procid: %s: %w", id, ErrNoProcess)
		}
		return fmt.Errorf("procid: signal %s: %w", id, err)
	}
	return nil
}
