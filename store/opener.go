package store

import (
	"os"

	"github.com/stickhq/stick/internal/filelock"
)

// otherOpener returns the pid of another process that has the SQLite
// database at path open, or 0 when none is known. In WAL mode every
// connection keeps a shared POSIX lock on the database file for as long as
// it is open, and /proc/locks lists it (only Linux tells; a process in
// another pid namespace is not known).
func otherOpener(path string) int { return filelock.LockHolder(path, "POSIX", true, os.Getpid()) }
