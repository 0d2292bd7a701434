//go:build !unix

package demo

import "syscall"

// sysProcAttr sets nothing: an agent notices the driver's death when its
// stdin reaches end of file.
func sysProcAttr() *syscall.SysProcAttr {
	return nil
}
