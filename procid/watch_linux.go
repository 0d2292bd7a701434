//go:build linux

package procid

import (
	"context"
	"errors"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// WatchExit returns a channel that is closed when the exact process id
// exits, or at once when it is already found [Gone]. ok is false when this
// platform or situation cannot watch (no pidfd support, permission denied,
// another host, facts unreadable); the caller then polls [Check] instead.
// Watching ends when ctx is done; the channel then stays open.
//
// On Linux it holds a pidfd, so no polling happens and no thread blocks:
// the Go runtime's poller wakes the watcher when the process exits.
func WatchExit(ctx context.Context, id Identity) (<-chan struct{}, bool) {
	if st, done := judgeHost(id); done {
		if st == Gone {
			return closedChan(), true
		}
		return nil, false
	}
	fd, ok := cachedPidfd(id)
	if !ok {
		var err error
		fd, err = openPidfd(id.PID)
		if errors.Is(err, unix.ESRCH) {
			return closedChan(), true
		}
		if err != nil {
			return nil, false
		}
		// The pidfd pins whichever process held the pid when it was opened.
		// Reading the facts only now proves that process is the one in id.
		facts, err := readProc(id.PID)
		switch judgeProc(id, facts, err) {
		case Gone:
			_ = unix.Close(fd)
			return closedChan(), true
		case Unknown:
			_ = unix.Close(fd)
			return nil, false
		}
	}
	f := os.NewFile(uintptr(fd), "pidfd "+strconv.Itoa(id.PID))
	rc, err := f.SyscallConn()
	if err != nil || f.SetReadDeadline(time.Time{}) != nil { // not in the poller
		_ = f.Close()
		return nil, false
	}
	exited := make(chan struct{})
	go func() {
		defer f.Close()
		stop := context.AfterFunc(ctx, func() {
			_ = f.SetReadDeadline(time.Unix(1, 0)) // wakes the Read below
		})
		defer stop()
		var pollErr error
		err := rc.Read(func(fd uintptr) bool {
			var ready bool
			ready, pollErr = pidfdReadable(int(fd))
			return ready || pollErr != nil
		})
		switch {
		case err != nil: // ctx done
		case pollErr != nil:
			pollUntilGone(ctx, id, exited)
		default:
			close(exited)
		}
	}()
	return exited, true
}

// openPidfd opens a non-blocking pidfd for pid (PIDFD_NONBLOCK needs Linux
// 5.10; on 5.3 to 5.9 the flag is set afterwards).
func openPidfd(pid int) (int, error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if !errors.Is(err, unix.EINVAL) {
		return fd, err
	}
	fd, err = unix.PidfdOpen(pid, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// pidfdReadable reports whether the pidfd signals that its process exited.
func pidfdReadable(fd int) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false, err
		}
		return n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0, nil
	}
}

// pollInterval paces pollUntilGone.
const pollInterval = 250 * time.Millisecond

// pollUntilGone is the fallback when the pidfd cannot be polled after all:
// it closes exited once Check proves id gone, or returns when ctx is done.
func pollUntilGone(ctx context.Context, id Identity, exited chan<- struct{}) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for Check(id) != Gone {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
	close(exited)
}

// closedChan returns an already closed channel, the answer for a process
// that is gone before watching starts.
func closedChan() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}
