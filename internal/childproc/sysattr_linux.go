//go:build linux

package childproc

import "syscall"

// sysProcAttr makes the kernel SIGKILL the child when this process dies,
// so no child outlives its driver even when the driver itself is killed,
// and with ownGroup puts the child in a process group of its own. Strictly,
// Pdeathsig fires when the thread that started the child exits: Start
// locks its goroutine to its thread around the fork, and Go does not end
// idle threads, so in practice that means the process.
func sysProcAttr(ownGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: ownGroup, Pdeathsig: syscall.SIGKILL}
}
