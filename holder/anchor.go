package holder

import (
	"context"
	"errors"
	"time"

	"github.com/stickhq/stick/procid"
)

// ErrAnchorGone is the cause with which a holder's context ends when the
// shell or harness it belongs to exits.
var ErrAnchorGone = errors.New("the shell or harness this holder belongs to has exited")

// WatchAnchor calls gone when the anchor process exits: through the
// platform's exit watch, or by checking every second where there is none.
// It returns when ctx ends. A holder never outlives its anchor.
func WatchAnchor(ctx context.Context, anchor procid.Identity, gone func()) {
	if exited, ok := procid.WatchExit(ctx, anchor); ok {
		select {
		case <-exited:
			gone()
		case <-ctx.Done():
		}
		return
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if procid.Check(anchor) == procid.Gone {
				gone()
				return
			}
		case <-ctx.Done():
			return
		}
	}
}
