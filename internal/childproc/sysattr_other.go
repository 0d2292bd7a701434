//go:build !unix

package childproc

import "syscall"

// sysProcAttr sets nothing: without Unix process groups and Pdeathsig, a
// child notices its driver's death when its stdin reaches end of file.
func sysProcAttr(bool) *syscall.SysProcAttr { return nil }
