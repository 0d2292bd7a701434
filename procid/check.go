package procid

import (
	"context"
	"errors"
)

// Checker judges liveness with this package's functions. It has no state;
// its zero value is ready to use. It exists so that other packages can
// hold liveness checking as an interface value and swap it in tests.
type Checker struct{}

// Check is [Check], as a method.
func (Checker) Check(id Identity) Status { return Check(id) }

// Watch is [WatchExit], as a method.
func (Checker) Watch(ctx context.Context, id Identity) (<-chan struct{}, bool) {
	return WatchExit(ctx, id)
}

// Check judges whether the exact process id is still running. It answers
// [Gone] only when that is proven: the host rebooted since, the pid is
// free, the pid belongs to a process with another start time, or the
// process has exited and waits to be reaped. Identities from another host
// or pid namespace, and any failure to read facts, give [Unknown].
//
// On Linux a process found alive is remembered through a pidfd, so that
// checking it again (every read of a room checks its holder) costs one
// poll instead of reading /proc.
func Check(id Identity) Status {
	if st, done := judgeHost(id); done {
		return st
	}
	if st, ok := cachedCheck(id); ok {
		return st
	}
	facts, err := readProc(id.PID)
	st := judgeProc(id, facts, err)
	if st == Alive {
		remember(id)
	}
	return st
}

// judgeHost decides what can be decided without looking at the pid. done
// is false when the identity belongs to this host and boot (as far as
// known), so the pid must be examined.
func judgeHost(id Identity) (st Status, done bool) {
	if id.IsZero() || id.PID < 0 || id.HostID == "" {
		return Unknown, true
	}
	hostID, bootID, _ := Host()
	if hostID == "" || hostID != id.HostID {
		return Unknown, true // another host: judged by timeouts elsewhere
	}
	if id.BootID != "" && bootID != "" && id.BootID != bootID {
		return Gone, true // rebooted since: no process of that boot remains
	}
	return Unknown, false
}

// judgeProc judges the facts read for id.PID (or the error reading them).
func judgeProc(id Identity, facts procFacts, err error) Status {
	switch {
	case errors.Is(err, ErrNoProcess):
		return Gone
	case err != nil:
		return Unknown
	}
	if st := judgeStart(id.StartedAt.UnixMilli(), facts.startMillis); st != Alive {
		return st
	}
	if facts.exited {
		return Gone
	}
	return Alive
}

// judgeStart compares the recorded start time with the one read now, both
// in milliseconds since the epoch. Different times mean another process
// reuses the pid, with one exception: a difference of whole seconds is
// [Unknown]. On Linux the start time is derived from the kernel's boot
// time, which is kept in whole seconds and moves when the wall clock is
// stepped (NTP corrections, a VM or WSL resuming after the host slept), so
// the same process can then show a start time shifted by whole seconds.
// Calling that Gone would hand a live holder's resource to someone else.
func judgeStart(recorded, observed int64) Status {
	switch {
	case recorded == observed:
		return Alive
	case (observed-recorded)%1000 == 0:
		return Unknown
	default:
		return Gone
	}
}
