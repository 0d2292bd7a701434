//go:build linux

package procid

import (
	"sync"

	"golang.org/x/sys/unix"
)

// pidCacheSize bounds the pidfds Check keeps open: a room's holders and
// recipients are few, and an evicted entry only costs one slow check.
const pidCacheSize = 64

// pidCache maps identities proven alive to a pidfd of that exact process,
// so checking them again is one poll instead of reading /proc: a pidfd
// pins the process it was opened for, and becomes readable when it exits.
var pidCache struct {
	mu  sync.Mutex
	fds map[cacheKey]int
}

// cacheKey is an identity in comparable form: time.Time values that are
// Equal may still differ as map keys (location, monotonic reading).
type cacheKey struct {
	host, boot string
	pid        int
	startMS    int64
}

func keyOf(id Identity) cacheKey {
	return cacheKey{id.HostID, id.BootID, id.PID, id.StartedAt.UnixMilli()}
}

// cachedCheck answers from the cache: Alive or Gone, or ok false when id
// is not cached (or its pidfd cannot be polled).
func cachedCheck(id Identity) (st Status, ok bool) {
	pidCache.mu.Lock()
	defer pidCache.mu.Unlock()
	k := keyOf(id)
	fd, found := pidCache.fds[k]
	if !found {
		return Unknown, false
	}
	exited, err := pidfdReadable(fd)
	if err != nil || exited {
		delete(pidCache.fds, k)
		_ = unix.Close(fd)
		if err != nil {
			return Unknown, false
		}
		return Gone, true
	}
	return Alive, true
}

// remember caches a pidfd for id, which a slow check just found alive. The
// pidfd is opened after that check, so the facts are read once more to
// prove it pins the same process and not a successor on a reused pid.
func remember(id Identity) {
	fd, err := openPidfd(id.PID)
	if err != nil {
		return
	}
	facts, err := readProc(id.PID)
	if judgeProc(id, facts, err) != Alive {
		_ = unix.Close(fd)
		return
	}
	k := keyOf(id)
	pidCache.mu.Lock()
	defer pidCache.mu.Unlock()
	if old, found := pidCache.fds[k]; found {
		_ = unix.Close(old)
	} else if len(pidCache.fds) >= pidCacheSize {
		for k, v := range pidCache.fds { // evict one, whichever
			_ = unix.Close(v)
			delete(pidCache.fds, k)
			break
		}
	}
	if pidCache.fds == nil {
		pidCache.fds = make(map[cacheKey]int)
	}
	pidCache.fds[k] = fd
}

// cachedPidfd returns a duplicate of the cached pidfd of id, for a watch of
// its own: the cached pidfd pins the exact process id names, so no facts
// need reading again. ok is false when id is not cached.
func cachedPidfd(id Identity) (fd int, ok bool) {
	pidCache.mu.Lock()
	defer pidCache.mu.Unlock()
	cached, found := pidCache.fds[keyOf(id)]
	if !found {
		return -1, false
	}
	fd, err := unix.FcntlInt(uintptr(cached), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, false
	}
	return fd, true
}
