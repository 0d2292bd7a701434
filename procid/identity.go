package procid

import (
	"strconv"
	"time"
)

// Identity identifies one process exactly: a pid is only meaningful
// together with its host, boot and start time. The zero value identifies
// nothing (see [Identity.IsZero]).
type Identity struct {
	// HostID names the pid space the PID belongs to: a hash of the machine
	// id (so the raw id, which systemd asks programs to keep private, is
	// never stored), followed on Linux by "/pidns-<inode>" when the process
	// runs in a pid namespace other than the initial one, because pids of
	// different namespaces on one machine are unrelated. Empty when unknown.
	HostID string
	// BootID names the kernel boot (Linux: /proc/sys/kernel/random/boot_id,
	// macOS: kern.bootsessionuuid). Empty when unknown or where the
	// platform has no stable boot id (Windows).
	BootID string
	// PID is the operating system's process id.
	PID int
	// StartedAt is the process start time as reported by the OS, in UTC,
	// truncated to milliseconds. Together with PID it tells a process apart
	// from a later one that reuses the pid.
	StartedAt time.Time
}

// IsZero reports whether the identity carries no usable facts: without a
// pid and a start time nothing can be judged about it.
func (id Identity) IsZero() bool {
	return id.PID == 0 || id.StartedAt.IsZero()
}

// Same reports whether id and o name the same process: the same pid, host,
// boot and start time. Unlike ==, it compares start times as instants, so
// an identity read back from JSON or a database equals the original.
func (id Identity) Same(o Identity) bool {
	return id.PID == o.PID && id.HostID == o.HostID && id.BootID == o.BootID && id.StartedAt.Equal(o.StartedAt)
}

// startLayout shows milliseconds always, so equal identities print alike.
const startLayout = "2006-01-02T15:04:05.000Z07:00"

// String describes the identity for humans, e.g.
// "pid 123 started 2026-11-22T18:00:00.123Z on 3d1219c7".
func (id Identity) String() string {
	s := "pid " + strconv.Itoa(id.PID)
	if id.StartedAt.IsZero() {
		s += " (start unknown)"
	} else {
		s += " started " + id.StartedAt.UTC().Format(startLayout)
	}
	if id.HostID == "" {
		return s + " on unknown host"
	}
	host := id.HostID
	if len(host) > 8 {
		host = host[:8]
	}
	return s + " on " + host
}

// startMillis converts an OS start time in milliseconds since the Unix
// epoch into the form stored in [Identity.StartedAt].
func startMillis(ms int64) time.Time {
	return time.UnixMilli(ms).UTC()
}
