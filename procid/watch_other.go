//go:build !linux

package procid

import "context"

// WatchExit returns a channel that is closed when the exact process id
// exits, and ok=false when this platform cannot watch; the caller then
// polls [Check] instead. Only Linux (pidfd) can watch so far, so here it
// always returns nil, false.
func WatchExit(ctx context.Context, id Identity) (<-chan struct{}, bool) {
	return nil, false
}
