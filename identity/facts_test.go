package identity_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
)

// proc is a process of a made-up process tree.
func proc(pid int, name string) procid.Ancestor {
	return procid.Ancestor{Name: name, Identity: procid.Identity{
		HostID: "host-1", BootID: "boot-1", PID: pid, StartedAt: time.UnixMilli(int64(1_700_000_000_000 + pid)),
	}}
}

// host is a made-up host: an environment, a user, a process tree above
// the calling process (the parent first) and a session leader. It counts
// the walks up the tree.
type host struct {
	env     map[string]string
	user    string
	chain   []procid.Ancestor
	walkErr error
	leader  int
	walks   int
}

// facts are the Facts of h: nothing of the real process is read.
func (h *host) facts() identity.Facts {
	return identity.Facts{
		Getenv: func(k string) string { return h.env[k] },
		User:   func() string { return h.user },
		Self:   func() (procid.Identity, error) { return proc(2, "stick").Identity, nil },
		Parent: func() (procid.Identity, error) {
			if len(h.chain) == 0 {
				return procid.Identity{}, errors.New("no parent")
			}
			return h.chain[0].Identity, nil
		},
		Ancestors: func() ([]procid.Ancestor, error) {
			h.walks++
			return h.chain, h.walkErr
		},
		SessionLeader: func() (int, bool) { return h.leader, h.leader != 0 },
	}
}

// env is an environment.
type env map[string]string

// get reads the environment as os.Getenv does.
func (e env) get(k string) string { return e[k] }

// named returns a function that fails t on a naming's error and returns
// the connection named, to wrap a call: named(t)(claims.NameConnection(…)).
func named(t *testing.T) func(*identity.Connection, error) *identity.Connection {
	return func(c *identity.Connection, err error) *identity.Connection {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}
