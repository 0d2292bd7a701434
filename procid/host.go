package procid

import (
	"errors"
	"fmt"
	"sync"
)

// hostCache keeps this host's ids once read: they cannot change while the
// process runs. Failed reads are not cached, so a transient failure is
// retried on the next call. It is the package's only mutable state.
var hostCache struct {
	mu        sync.Mutex
	hostID    string
	bootID    string
	bootKnown bool // bootID was read (it may be empty where none exists)
}

// Host returns the host id and boot id of the calling process, in the form
// stored in [Identity]. Values that cannot be read are returned empty with
// an error saying why; a platform without a boot id (Windows) returns an
// empty bootID and no error. Successful reads are cached.
func Host() (hostID, bootID string, err error) {
	hostCache.mu.Lock()
	defer hostCache.mu.Unlock()
	var errs []error
	if !hostCache.bootKnown {
		b, err := readBootID()
		if err != nil {
			errs = append(errs, fmt.Errorf("procid: boot id: %w", err))
		} else {
			hostCache.bootID, hostCache.bootKnown = b, true
		}
	}
	if hostCache.hostID == "" {
		h, err := readHostID()
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("procid: host id: %w", err))
		case h == "":
			errs = append(errs, errors.New("procid: host id: empty"))
		default:
			hostCache.hostID = h
		}
	}
	return hostCache.hostID, hostCache.bootID, errors.Join(errs...)
}
