package stick

import (
	"sync"
	"time"

	"github.com/stickhq/stick/procid"
)

// maxVerdicts bounds the verdict cache; past it, expired verdicts are
// dropped, and if that is not enough, all of them.
const maxVerdicts = 4096

// verdicts caches liveness verdicts by exact process identity (and the
// proxy grace they were judged with, see GraceLiveness), so that a read
// showing every member's status probes each process at most once per
// liveness poll, however often rooms are read and however many members
// they have. A final Gone verdict never expires: an exited process never
// runs again under the same identity.
type verdicts struct {
	mu sync.Mutex
	m  map[procKey]verdict
}

// procKey is a process identity in a comparable form (Identity holds a
// time.Time, which == compares by location too), with the grace of the
// verdict.
type procKey struct {
	host, boot string
	pid        int
	start      int64
	grace      time.Duration
}

type verdict struct {
	status procid.Status
	until  time.Time // zero: for good
}

func keyOf(p Process, grace time.Duration) procKey {
	return procKey{host: p.HostID, boot: p.BootID, pid: p.PID, start: p.StartedAt.UnixNano(), grace: grace}
}

// get returns the cached verdict for p judged with grace, if one is still
// valid at now.
func (v *verdicts) get(p Process, grace time.Duration, now time.Time) (procid.Status, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	d, ok := v.m[keyOf(p, grace)]
	if !ok || (!d.until.IsZero() && !now.Before(d.until)) {
		return procid.Unknown, false
	}
	return d.status, true
}

// put records a verdict found at now with grace, valid for ttl (for good
// if Gone and final).
func (v *verdicts) put(p Process, grace time.Duration, st procid.Status, now time.Time, ttl time.Duration, final bool) {
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
	if st == procid.Gone && final {
		d.until = time.Time{}
	}
	v.m[keyOf(p, grace)] = d
}
