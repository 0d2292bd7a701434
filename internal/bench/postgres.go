package bench

import (
	"context"
	"os"
	"time"

	"github.com/stickhq/stick/internal/rundb"
)

// pgTarget is a scenario's absolute target on PostgreSQL: its text, as
// the table shows it, and the judge of one result.
type pgTarget struct {
	text string
	met  func(Result) bool
}

// postgresTargets are the scenarios' targets on PostgreSQL, by scenario
// name, on a 2-core machine with the server on the same host: one
// network round trip or more per transaction, where SQLite has none, so
// latencies are looser than SQLite's. A scenario not listed applies to
// PostgreSQL too, measured for information. A scenario that applies to
// one store only says why in its skip function (Scenario.skip); a crash
// on another host, seen through the database's sessions, is one for
// PostgreSQL only.
func postgresTargets() map[string]pgTarget {
	p99 := func(limit time.Duration) func(Result) bool {
		return func(r Result) bool { return r.P99 <= limit }
	}
	return map[string]pgTarget{
		"handoff-library": {"p50 <= 3 ms, p99 <= 15 ms", func(r Result) bool {
			return r.P50 <= 3*time.Millisecond && r.P99 <= 15*time.Millisecond
		}},
		"contention":       {">= 1,000 grants/s", func(r Result) bool { return r.Throughput >= 1000 }},
		"idle-waiters":     {"< 2% of one core in total, the database's server processes included", func(r Result) bool { return r.CPU < 2 }},
		"big-database":     {"each p99 <= 5 ms", p99(5 * time.Millisecond)},
		"message-wake":     {"p50 <= 6 ms", func(r Result) bool { return r.P50 <= 6*time.Millisecond }},
		"search":           {"p99 <= 30 ms", p99(30 * time.Millisecond)},
		"cross-host-crash": {"p50 <= 200 ms", func(r Result) bool { return r.P50 <= 200*time.Millisecond }},
	}
}

// skipFor says why sc does not apply to a run on PostgreSQL (pg) or on
// SQLite, or returns "".
func (sc Scenario) skipFor(pg bool) string {
	if sc.skip == nil {
		return ""
	}
	return sc.skip(pg)
}

// judgeOnPostgres replaces the verdict on SQLite's target, which the
// scenario gave r, with the verdict on its PostgreSQL target; a scenario
// without one is measured for information and meets it when it found no
// problem.
func (sc Scenario) judgeOnPostgres(r *Result) {
	if sc.pgMet == nil {
		r.Target = "none on PostgreSQL (SQLite: " + sc.Target + ")"
		r.Met = true
		return
	}
	r.Target = sc.PostgresTarget
	r.Met = sc.pgMet(*r)
}

// onPostgres moves the scenario to an empty database of its own on the
// server of Options.Database, and returns the function that drops it.
func (e *env) onPostgres(ctx context.Context) (drop func() error, err error) {
	srv, err := rundb.Connect(ctx, e.o.Database)
	if err != nil {
		return nil, err
	}
	// The data directory still holds what the processes keep besides the
	// store (a holder's record, a proxy's claims).
	if err := os.MkdirAll(e.data, 0o700); err != nil {
		return nil, err
	}
	e.db, drop, err = srv.Fresh(ctx, "stickbench", e.data)
	return drop, err
}
