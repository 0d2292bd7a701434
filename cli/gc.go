package cli

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// A hub and a proxy allocate for every request they serve, mostly in the
// MCP SDK's JSON decoding, and keep little: a small live heap. The Go
// default (a collection each time the heap doubles) then spends a large
// share of a handoff's time collecting: through two proxies and a hub a
// handoff took 2.25 ms at the median with it, 1.7 ms with collections
// four times rarer (stickbench handoff-http, one machine). A soft memory
// limit keeps such a process small all the same: gcMemoryFloor, or twice
// the live heap when that is more, so a large hub collects as often as
// the default would and never works against its limit.
const (
	gcPercent     = 400
	gcMemoryFloor = 48 << 20
	gcRetune      = 5 * time.Second
)

// tuneGC applies the settings above until ctx ends, unless the
// environment sets GOGC (then nothing changes) or GOMEMLIMIT (then only
// GOGC does), as it can for every Go program.
func tuneGC(ctx context.Context) {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(gcPercent)
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	limit := func() {
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(live)
		var bytes int64
		if live[0].Value.Kind() == metrics.KindUint64 {
			bytes = int64(live[0].Value.Uint64())
		}
		debug.SetMemoryLimit(max(gcMemoryFloor, 2*bytes))
	}
	limit()
	go func() {
		t := time.NewTicker(gcRetune)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				limit()
			}
		}
	}()
}
