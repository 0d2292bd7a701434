package store

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// otherOpener returns the pid of another process that has the SQLite
// database at path open, or 0 when none is known. In WAL mode every
// connection keeps a shared POSIX lock on the database file for as long as
// it is open, and /proc/locks lists it (a process in another pid namespace
// is listed with pid 0 or not at all, and is not known).
func otherOpener(path string) int {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		// "2: POSIX  ADVISORY  READ 1234 fe:00:5678 1073741826 1073742335";
		// a waiter's line has "->" after its number and one more field.
		f := strings.Fields(line)
		if len(f) > 1 && f[1] == "->" {
			f = append(f[:1], f[2:]...)
		}
		if len(f) < 6 || f[1] != "POSIX" {
			continue
		}
		id := strings.Split(f[5], ":")
		if len(id) != 3 {
			continue
		}
		major, err1 := strconv.ParseUint(id[0], 16, 32)
		minor, err2 := strconv.ParseUint(id[1], 16, 32)
		ino, err3 := strconv.ParseUint(id[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || ino != st.Ino ||
			uint32(major) != unix.Major(st.Dev) || uint32(minor) != unix.Minor(st.Dev) {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil && pid > 0 && pid != os.Getpid() {
			return pid
		}
	}
	return 0
}
