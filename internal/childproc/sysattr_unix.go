//go:build unix && !linux

package childproc

import "syscall"

// sysProcAttr puts the child in a process group of its own with ownGroup.
// Only Linux can tie a child's life to its parent; elsewhere a child
// notices its driver's death when its stdin reaches end of file.
func sysProcAttr(ownGroup bool) *syscall.SysProcAttr {
	if !ownGroup {
		return nil
	}
	return &syscall.SysProcAttr{Setpgid: true}
}
