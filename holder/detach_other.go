//go:build !unix && !windows

package holder

import "syscall"

// detached returns no attributes where sessions do not exist; the guardian
// is bound to its anchor all the same.
func detached() *syscall.SysProcAttr { return nil }
