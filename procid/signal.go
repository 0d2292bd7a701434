package procid

import "fmt"

// signalRefused explains why Signal did not send: the process is gone, or
// its liveness cannot be proven.
func signalRefused(id Identity, st Status) error {
	if st == Gone {
		return fmt.Errorf("procid: %s: %w", id, ErrNoProcess)
	}
	return fmt.Errorf("procid: %s: cannot prove it is the recorded process (%s); not signalling", id, st)
}
