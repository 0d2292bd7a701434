package cli

import (
	"context"
	"os"
	"runtime/debug"
	"testing"
)

// A hub or a proxy collects four times more rarely than the default,
// under a soft memory limit; GOGC or GOMEMLIMIT in the environment
// decide instead, as for every Go program.
func TestTuneGC(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })
	for _, tc := range []struct {
		env                    map[string]string
		wantPercent, wantLimit int64
	}{
		{nil, gcPercent, gcMemoryFloor},
		{map[string]string{"GOGC": "100"}, 100, 1 << 40},
		{map[string]string{"GOMEMLIMIT": "1GiB"}, gcPercent, 1 << 40},
	} {
		for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
			if v, ok := tc.env[k]; ok {
				t.Setenv(k, v)
			} else {
				t.Setenv(k, "")
				os.Unsetenv(k)
			}
		}
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(1 << 40)
		ctx, cancel := context.WithCancel(context.Background())
		tuneGC(ctx)
		cancel() // no retuning while the next case runs
		if got := debug.SetGCPercent(100); int64(got) != tc.wantPercent {
			t.Errorf("env %v: GC percent %d, want %d", tc.env, got, tc.wantPercent)
		}
		if got := debug.SetMemoryLimit(-1); got < tc.wantLimit || (tc.wantLimit == gcMemoryFloor && got > 4*gcMemoryFloor) {
			t.Errorf("env %v: memory limit %d, want %d", tc.env, got, tc.wantLimit)
		}
	}
}
