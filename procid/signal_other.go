//go:build !linux

package procid

import (
	"fmt"
	"os"
	"syscall"
)

// Signal sends sig to the exact process id: it checks id's start time and
// then signals the pid. Without pidfds a pid reused between the check and
// the signal cannot be excluded, but the window is that of two system
// calls. It fails with an error wrapping ErrNoProcess when id is gone, and
// refuses identities it cannot prove alive (another host, facts
// unreadable). Windows can only deliver a kill.
func Signal(id Identity, sig syscall.Signal) error {
	if st := Check(id); st != Alive {
		return signalRefused(id, st)
	}
	p, err := os.FindProcess(id.PID)
	if err != nil {
		return fmt.Errorf("procid: %s: %w", id, err)
	}
	if err := p.Signal(sig); err != nil {
		return fmt.Errorf("procid: signal %s: %w", id, err)
	}
	return nil
}
