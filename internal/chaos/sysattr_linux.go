//go:build linux

package chaos

import "syscall"

// sysProcAttr makes the kernel SIGKILL an agent when the driver dies, so no
// agent outlives a soak even when the driver itself is killed. Pdeathsig
// fires when the thread that started the child exits, so start locks its
// goroutine to its thread around the fork; Go does not end idle threads,
// so in practice that means the process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
