package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/internal/ownerfs"
)

// maxInstances bounds how many live connections of one client name,
// harness process and session Claims numbers before it gives up.
const maxInstances = 256

// Claims hands out derived agent ids so that two live connections never
// act as one member: two servers a harness runs at the same time (one per
// chat tab) derive the same id, and the second must be a member of its own.
//
// A claim is an exclusive lock on an owner-only file named for the id in
// the instances directory of the data directory; the kernel drops it when
// its process dies, even by SIGKILL, so a server started after the first
// has exited claims the first id again. Locks belong to an open file, so
// two connections of one process exclude each other too. Without a data
// directory, claims exclude each other within this process only.
type Claims struct {
	// dataDir is the data directory, and dir holds the lock files in it;
	// both are "" for claims within this process only.
	dataDir, dir string
	mu           sync.Mutex
	// held is the ids claimed through this Claims and not yet released.
	held map[string]bool
}

// NewClaims returns the claims of the data directory dataDir ("" for
// claims that exclude each other within this process only).
func NewClaims(dataDir string) *Claims {
	c := &Claims{dataDir: dataDir, held: map[string]bool{}}
	if dataDir != "" {
		c.dir = filepath.Join(dataDir, "instances")
	}
	return c
}

// Claim is a derived agent id held by one live connection.
type Claim struct {
	// ID is the agent id claimed.
	ID string
	// Instance is its ordinal among the live connections that derive their
	// id from the same facts: 1 for the first, 2 for the second, ...
	Instance int
	claims   *Claims
	lock     *filelock.Lock
	once     sync.Once
}

// Claim holds the id derive(n) of the first instance n = 1, 2, ... that
// no live connection holds on this host, until Release or the end of this
// process. derive(1) is the id as derived today (AgentID), derive(n) for
// n > 1 the id of the n-th instance (InstanceID).
func (c *Claims) Claim(derive func(n int) string) (*Claim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir != "" {
		if err := ownerDir(c.dir); err != nil {
			return nil, err
		}
	}
	for n := 1; n <= maxInstances; n++ {
		id := derive(n)
		if c.held[id] {
			continue
		}
		var lock *filelock.Lock
		if c.dir != "" {
			l, ok, err := tryLock(filepath.Join(c.dir, fileName(id)+".lock"))
			if err != nil {
				return nil, fmt.Errorf("claiming agent id %s: %w", id, err)
			}
			if !ok {
				continue
			}
			lock = l
		}
		c.held[id] = true
		return &Claim{ID: id, Instance: n, claims: c, lock: lock}, nil
	}
	return nil, fmt.Errorf("%d live connections already derive their agent id from the same harness process", maxInstances)
}

// Release gives the id up, so the next connection that derives it gets
// it; a second call does nothing.
func (cl *Claim) Release() {
	cl.once.Do(func() {
		cl.claims.mu.Lock()
		defer cl.claims.mu.Unlock()
		delete(cl.claims.held, cl.ID)
		if cl.lock != nil {
			// Removed while still locked, so no file is left behind; a
			// racing claimant sees that (filelock.Lock.Current) and retries.
			os.Remove(cl.lock.Path())
			cl.lock.Close()
		}
	})
}

// tryLock takes the lock file at path if nobody holds it, and reports
// whether it did.
func tryLock(path string) (*filelock.Lock, bool, error) {
	for range 16 {
		l, err := filelock.Open(path)
		if err != nil {
			return nil, false, err
		}
		ok, err := l.TryLock()
		if err != nil || !ok {
			l.Close()
			return nil, false, err
		}
		if l.Current() {
			return l, true, nil
		}
		l.Close() // its last holder removed it after we opened it: again
	}
	return nil, false, errors.New("the lock file " + path + " keeps being replaced")
}

// ownerDir creates dir if needed, with its parents, owner-only (0700): what
// it holds names the user's agents, or is their secrets. It refuses a dir
// that is a link, or a dir or parent that another user owns or may write
// in, since whoever
// could plant files there could read the secrets or make stick overwrite
// the user's files.
func ownerDir(dir string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return err
	}
	if err := ownerfs.CheckDir(parent); err != nil {
		return err
	}
	return ownerfs.Subdir(dir)
}

// fileName is a file name for key: a hash, so no key's characters (a
// colon, a slash) reach the filesystem.
func fileName(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:16])
}
