//go:build linux

package demo

import "syscall"

// sysProcAttr puts an agent in its own process group, so a Ctrl-C at the
// terminal reaches only the driver (which then kills it), and makes the
// kernel SIGKILL it when the driver dies. Pdeathsig fires when the thread
// that started the child exits, so start locks its goroutine to its thread
// around the fork; Go does not end idle threads, so in practice that means
// the process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
