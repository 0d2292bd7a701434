package stick

import (
	"sync"
	"time"

	"github.com/stickhq/stick/procid"
)

// maxVerdicts bounds the verdict cache; past it, expired verdicts are
// dropped, and if that is not enough, all of them.
const maxVerdicts = 4096

// verdicts caches liveness verdicts by exact process identity, so that a
// read showing every member's status probes each process at most once per
// liveness poll, however often rooms are read and however many members
// they have. A Gone verdict never expires: an exited process never runs
// again under the same identity.
type verdicts struct {
	mu sync.Mutex
	m  map[procKey]verdict
}

// procKey is a process identity in a comparable form (Identity holds a
// time.Time, which == compares by location too).
type procKey struct {
	host, boot string
	pid        int
	start      int64
}

type verdict struct {
	status procid.Status
	until  time.Time // zero: for good
}

func keyOf(p Process) procKey {
	return procKey{host: p.HostID, boot: p.BootID, pid: p.PID, start: p.StartedAt.UnixNano()}
}

// get returns the cached verdict for p, if one is still valid at now.
func (v *verdicts) get(p Process, now time.Time) (procid.Status, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	d, ok := v.m[keyOf(p)]
	if !ok || (!d.until.IsZero() && !now.Before(d.until)) {
		return procid.Unknown, false
	}
	return d.status, true
}

// put records a verdict found at now, valid for ttl (for good if Gone).
func (v *verdicts) put(p Process, st procid.Status, now time.Time, ttl time.Duration) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = make(map[procKey]verdict)
	}
	if len(v.m) >= maxVerdicts {
		for k, d := range v.m {
			if !d.until.IsZero() && !now.Before(d.until) {
				delete(v.m, k)
			}
		}
		if len(v.m) >= maxVerdicts {
			clear(v.m)
		}
	}
	d := verdict{status: st, until: now.Add(ttl)}
	if st == procid.Gone {
		d.until = time.Time{}
	}
	v.m[keyOf(p)] = d
}
