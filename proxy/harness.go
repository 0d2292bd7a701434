package proxy

import (
	"context"
	"time"

	"github.com/stickhq/stick/procid"
)

// harnessPoll paces the check of a harness whose exit cannot be watched.
const harnessPoll = 250 * time.Millisecond

// watchHarness returns a channel closed when the harness process exits:
// through procid's exit watch (a pidfd on Linux), else by checking it
// every harnessPoll. A harness that cannot be judged (no facts, the
// proxy's own process standing in) is never found gone.
func watchHarness(ctx context.Context, harness procid.Identity) <-chan struct{} {
	if ch, ok := procid.WatchExit(ctx, harness); ok {
		return ch
	}
	exited := make(chan struct{})
	go func() {
		t := time.NewTicker(harnessPoll)
		defer t.Stop()
		for procid.Check(harness) != procid.Gone {
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
		close(exited)
	}()
	return exited
}
