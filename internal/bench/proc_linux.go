package bench

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the child if this process dies
// first, so an interrupted run leaves no processes behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
