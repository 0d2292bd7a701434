package holder

import (
	"context"
	"syscall"
	"time"

	"github.com/stickhq/stick/procid"
)

// Stop stops the holder process of r, exactly that process (pid and start
// time), waits until it is gone and drops its record. A holder that
// ignores SIGTERM for five seconds is killed; one already gone is fine.
func Stop(r Record) {
	defer func() {
		if dir, err := Dir(); err == nil {
			_ = Drop(dir, r.Guardian)
		}
	}()
	if err := procid.Signal(r.Guardian, syscall.SIGTERM); err != nil {
		if procid.Check(r.Guardian) == procid.Alive { // no SIGTERM here (Windows): kill it
			_ = procid.Signal(r.Guardian, syscall.SIGKILL)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if exited, ok := procid.WatchExit(ctx, r.Guardian); ok {
		select {
		case <-exited:
			return
		case <-ctx.Done():
		}
	} else {
		for ctx.Err() == nil && procid.Check(r.Guardian) == procid.Alive {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if procid.Check(r.Guardian) == procid.Alive {
		_ = procid.Signal(r.Guardian, syscall.SIGKILL)
	}
}
