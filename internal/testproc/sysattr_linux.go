//go:build linux

package testproc

import "syscall"

// sysProcAttr makes the kernel SIGKILL the child when the test process
// dies. Strictly, Pdeathsig fires when the thread that started the child
// exits; start locks the goroutine to its thread around the fork, and Go
// does not end idle threads, so in practice that means the process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
