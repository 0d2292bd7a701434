//go:build unix

package holder

import "syscall"

// detached makes a guardian the leader of a new session, without a
// controlling terminal: the terminal's Ctrl-C and hang-up do not reach it;
// its anchor's exit does.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
