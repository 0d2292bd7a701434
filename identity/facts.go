package identity

import (
	"os"
	"os/user"

	"github.com/stickhq/stick/procid"
)

// Facts are what naming a caller on this host reads: the environment, the
// user the process runs as, and the process tree above it. A nil field
// reads this process's own, so Facts{} is this process and a test sets
// only what it fakes (an environment with a harness's markers, an
// ancestry with a harness in it) and needs no real harness.
type Facts struct {
	// Getenv reads the environment (default os.Getenv).
	Getenv func(string) string
	// User returns the name of the user the process runs as, "" when it
	// cannot be told (default: os/user.Current).
	User func() string
	// Self returns the calling process (default procid.Self).
	Self func() (procid.Identity, error)
	// Parent returns its parent (default procid.Parent).
	Parent func() (procid.Identity, error)
	// Ancestors returns its ancestors, the parent first, up to but not
	// including init (default procid.Ancestors).
	Ancestors func() ([]procid.Ancestor, error)
	// SessionLeader returns the pid of the leader of its session (the
	// shell a terminal started), false when it leads its own session or
	// there are no sessions (default: the kernel's session id).
	SessionLeader func() (int, bool)
}

// local returns f with every nil field set to this process's own.
func (f Facts) local() Facts {
	if f.Getenv == nil {
		f.Getenv = os.Getenv
	}
	if f.User == nil {
		f.User = userName
	}
	if f.Self == nil {
		f.Self = procid.Self
	}
	if f.Parent == nil {
		f.Parent = procid.Parent
	}
	if f.Ancestors == nil {
		f.Ancestors = procid.Ancestors
	}
	if f.SessionLeader == nil {
		f.SessionLeader = sessionLeader
	}
	return f
}

// userName is the name of the user this process runs as, "" if unknown.
func userName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
