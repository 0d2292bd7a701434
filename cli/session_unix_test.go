//go:build unix

package cli

import "golang.org/x/sys/unix"

// leadSession makes the calling test helper the leader of a new session, as
// the shell a terminal starts is.
func leadSession() { _, _ = unix.Setsid() }
