package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// deletedDBUsers returns the pids of the processes that still have the
// database at path, its -wal or its -shm open although the file was
// deleted (a cleanup script, an rm): they go on writing where no new
// process reads.
func deletedDBUsers(path string) []int {
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	seen := map[int]bool{}
	var out []int
	for _, fd := range fds {
		l, err := os.Readlink(fd)
		if err != nil || !strings.HasSuffix(l, " (deleted)") {
			continue
		}
		switch strings.TrimSuffix(l, " (deleted)") {
		case path, path + "-wal", path + "-shm":
		default:
			continue
		}
		pid, err := strconv.Atoi(strings.Split(fd, "/")[2])
		if err == nil && !seen[pid] {
			seen[pid] = true
			out = append(out, pid)
		}
	}
	return out
}
