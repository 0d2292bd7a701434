package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stickhq/stick/store"
)

// sqliteTx times claim- and release-shaped transactions, alternating,
// on a floor database of its own (store.Floor): the driver, pragmas and
// statements of a store without stick's logic.
func sqliteTx(ctx context.Context, e *env) ([]FloorResult, error) {
	f, err := store.OpenFloor(filepath.Join(filepath.Dir(e.data), "floor.db"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for range 50 { // warm the cache of statements and pages
		if err := f.Claim(); err != nil {
			return nil, err
		}
		if err := f.Release(); err != nil {
			return nil, err
		}
	}
	n := e.fixed(3000, 300)
	claims, releases := make([]time.Duration, 0, n), make([]time.Duration, 0, n)
	m := startMeter()
	for range n {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t0 := time.Now()
		if err := f.Claim(); err != nil {
			return nil, err
		}
		t1 := time.Now()
		if err := f.Release(); err != nil {
			return nil, err
		}
		claims, releases = append(claims, t1.Sub(t0)), append(releases, time.Since(t1))
	}
	c := FloorResult{Floor: "sqlite-claim-tx", Unit: "tx", What: "BEGIN IMMEDIATE, read the room, update it, append a claim event, COMMIT"}
	r := FloorResult{Floor: "sqlite-release-tx", Unit: "tx", What: "the same with a release event and its handoff"}
	c.fromSamples(claims)
	r.fromSamples(releases)
	// One meter covers both kinds, alternating: each gets the shared CPU
	// share, and its own rate over its own time.
	var both FloorResult
	both.fromMeter(m, 2*n)
	c.CPU, r.CPU = both.CPU, both.CPU
	c.Throughput, r.Throughput = 1/c.Mean.Seconds(), 1/r.Mean.Seconds()
	c.Notes = []string{"throughput: one over the mean; CPU: of claims and releases together"}
	return []FloorResult{c, r}, nil
}

// sqlite3C runs the floor's transactions through the sqlite3 tool: the
// time for n claim+release pairs less the time for none (process start,
// schema), each the fastest of three runs on a fresh file, per
// transaction. No target depends on it.
func sqlite3C(ctx context.Context, e *env) ([]FloorResult, error) {
	tool, err := exec.LookPath("sqlite3")
	if err != nil {
		return unavailable("sqlite3-c", "no sqlite3 tool on PATH"), nil
	}
	dir := filepath.Dir(e.data)
	n := e.fixed(2000, 200)
	var base, full, baseCPU, fullCPU time.Duration
	for i, script := range []string{store.FloorScript(0), store.FloorScript(n)} {
		best, bestCPU := time.Duration(0), time.Duration(0)
		for j := range 3 {
			db := filepath.Join(dir, fmt.Sprintf("c-%d-%d.db", i, j))
			wall, cpu, err := runSQLite3(ctx, tool, db, script)
			if err != nil {
				return nil, err
			}
			if best == 0 || wall < best {
				best, bestCPU = wall, cpu
			}
		}
		if i == 0 {
			base, baseCPU = best, bestCPU
		} else {
			full, fullCPU = best, bestCPU
		}
	}
	r := FloorResult{Floor: "sqlite3-c", Unit: "tx", Count: 2 * n}
	if full <= base {
		return unavailable("sqlite3-c", "%d transactions took no longer than none (%v, %v): too coarse a clock", 2*n, full, base), nil
	}
	work := full - base
	r.Mean = work / time.Duration(2*n)
	r.Throughput = float64(2*n) / work.Seconds()
	r.CPU = 100 * max(fullCPU-baseCPU, 0).Seconds() / work.Seconds()
	out, _ := exec.CommandContext(ctx, tool, "--version").Output()
	if v := strings.Fields(string(out)); len(v) > 0 {
		r.Notes = append(r.Notes, "SQLite "+v[0])
	}
	r.Notes = append(r.Notes, fmt.Sprintf("mean of claim and release: (%d pairs − none) / %d, fastest of 3 runs; no p50 or p99", n, 2*n))
	return []FloorResult{r}, nil
}

// runSQLite3 feeds script to the sqlite3 tool on a new database file and
// returns the wall and processor time of the run.
func runSQLite3(ctx context.Context, tool, db, script string) (wall, cpu time.Duration, err error) {
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(db + suffix)
		}
	}()
	// The script is read from a file, so that no copying by this process
	// is timed.
	src := db + ".sql"
	if err := os.WriteFile(src, []byte(script), 0o600); err != nil {
		return 0, 0, err
	}
	defer os.Remove(src)
	in, err := os.Open(src)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	cmd := exec.CommandContext(ctx, tool, "-bail", db)
	cmd.Stdin = in
	var stderr strings.Builder
	cmd.Stderr = &stderr // stdout, the rows read, goes to the null device
	t0 := time.Now()
	err = cmd.Run()
	wall = time.Since(t0)
	if err != nil {
		return 0, 0, fmt.Errorf("sqlite3: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	st := cmd.ProcessState
	return wall, st.UserTime() + st.SystemTime(), nil
}
