package filelock

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Holder returns the pid of the process holding a flock on the file at
// path, from /proc/locks, or 0 when none is known (the file is not locked,
// or its holder is in another pid namespace).
func Holder(path string) int { return LockHolder(path, "FLOCK", false, 0) }

// LockHolder returns the pid of a process other than except that
// /proc/locks lists with a lock of the given kind ("FLOCK" or "POSIX") on
// the file at path, or 0 when none is known (a process in another pid
// namespace is listed with pid 0 or not at all). With waiting, a process
// waiting for such a lock counts too: it has the file open as well.
func LockHolder(path, kind string, waiting bool, except int) int {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	want := strconv.FormatUint(uint64(unix.Major(st.Dev)), 16) + ":" +
		strconv.FormatUint(uint64(unix.Minor(st.Dev)), 16) + ":" + strconv.FormatUint(st.Ino, 10)
	for line := range strings.Lines(string(data)) {
		// "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; a waiter's
		// line has "->" after its number and one more field.
		f := strings.Fields(line)
		if waiting && len(f) > 1 && f[1] == "->" {
			f = append(f[:1], f[2:]...)
		}
		if len(f) < 6 || f[1] != kind || !sameDev(f[5], want) {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil && pid > 0 && pid != except {
			return pid
		}
	}
	return 0
}

// sameDev compares two "major:minor:inode" triples whose hexadecimal
// numbers may be written with leading zeros ("00:2a:7" and "0:2a:7").
func sameDev(a, b string) bool {
	pa, pb := strings.Split(a, ":"), strings.Split(b, ":")
	if len(pa) != 3 || len(pb) != 3 {
		return false
	}
	for i := range 3 {
		base := 16
		if i == 2 {
			base = 10
		}
		x, err1 := strconv.ParseUint(pa[i], base, 64)
		y, err2 := strconv.ParseUint(pb[i], base, 64)
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
}
