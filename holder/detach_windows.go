//go:build windows

package holder

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// detached starts a guardian in its own process group without a console:
// the console's Ctrl-C does not reach it; its anchor's exit does.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}
