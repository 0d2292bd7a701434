// Package testkit holds small helpers the test suites share: a temporary
// workspace, real git repositories and clones, latency percentiles for
// benchmarks, and whether permission bits bind this process.
package testkit

import (
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"
)

// Repo returns a new temporary directory, symlinks resolved, that is a git
// top level (it has a .git directory), so rooms resolve to it.
func Repo(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// ReportHandoffs reports the one-way handoff latency percentiles of round
// trips (each made of two handoffs) as the benchmark metrics
// handoff-p50-µs and handoff-p99-µs.
func ReportHandoffs(b *testing.B, rounds []time.Duration) {
	if len(rounds) == 0 {
		return
	}
	sort.Slice(rounds, func(i, j int) bool { return rounds[i] < rounds[j] })
	pct := func(q float64) float64 { return float64(rounds[int(q*float64(len(rounds)-1))].Microseconds()) / 2 }
	b.ReportMetric(pct(0.50), "handoff-p50-µs")
	b.ReportMetric(pct(0.99), "handoff-p99-µs")
}

// PermissionBitsBind reports whether a directory without write permission
// stops this process from creating a file in it; it does not for root, so
// tests of read-only data directories must make them another way.
var PermissionBitsBind = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "stick-perm-probe")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o500); err != nil {
		return false
	}
	defer os.Chmod(dir, 0o700)
	return os.WriteFile(filepath.Join(dir, "probe"), nil, 0o600) != nil
})
