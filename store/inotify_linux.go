package store

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// inotifyUsage counts the inotify instances open in the processes this
// user can see, and reads the per-user limit; 0, 0 when either is unknown.
func inotifyUsage() (used, limit int) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_instances")
	if err != nil {
		return 0, 0
	}
	if limit, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		return 0, 0
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	uid := os.Getuid()
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := filepath.Join("/proc", p.Name())
		if fi, err := os.Stat(dir); err != nil || !ownedBy(fi, uid) {
			continue
		}
		fds, err := os.ReadDir(filepath.Join(dir, "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(dir, "fd", fd.Name())); err == nil && l == "anon_inode:inotify" {
				used++
			}
		}
	}
	return used, limit
}

// ownedBy reports whether fi belongs to the user uid.
func ownedBy(fi os.FileInfo, uid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}
