//go:build unix

package identity

import (
	"os"

	"golang.org/x/sys/unix"
)

// sessionLeader returns the pid of this process's session leader (the shell
// a terminal started, a tmux pane's shell, an ssh session's shell), unless
// this process leads its own session.
func sessionLeader() (int, bool) {
	sid, err := unix.Getsid(0)
	if err != nil || sid <= 1 || sid == os.Getpid() {
		return 0, false
	}
	return sid, true
}
