//go:build !linux

package chaos

import "syscall"

// sysProcAttr sets nothing: only Linux can tie a child's life to its
// parent. Elsewhere an agent stops when its standard input reaches end of
// file, which happens when the driver dies.
func sysProcAttr() *syscall.SysProcAttr {
	return nil
}
