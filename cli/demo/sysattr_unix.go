//go:build unix && !linux

package demo

import "syscall"

// sysProcAttr puts an agent in its own process group, so a Ctrl-C at the
// terminal reaches only the driver (which then kills it). Only Linux can
// tie a child's life to its parent; elsewhere an agent notices the
// driver's death when its stdin reaches end of file.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
