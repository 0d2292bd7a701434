package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/pgtest"
)

// On PostgreSQL the library handoff runs between real processes on an
// empty database of its own, its room's log is right, and it is judged by
// its target for PostgreSQL.
func TestHandoffOnPostgres(t *testing.T) {
	server := pgtest.URL(t)
	sc := Scenarios()[indexOf(Scenarios(), "handoff-library")]
	var logged []string
	o := Options{Quick: true, Database: server, Log: func(format string, args ...any) { logged = append(logged, format) }}
	rs, err := RunOne(context.Background(), sc, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Count == 0 || len(rs[0].Problems) > 0 {
		t.Fatalf("results: %+v", rs)
	}
	r := rs[0]
	t.Logf("p50 %v, p99 %v, notes %v", r.P50, r.P99, r.Notes)
	if r.Target != sc.PostgresTarget || sc.PostgresTarget != "p50 <= 3 ms, p99 <= 15 ms" {
		t.Errorf("target %q; want PostgreSQL's %q", r.Target, sc.PostgresTarget)
	}
	if want := r.P50 <= 3*time.Millisecond && r.P99 <= 15*time.Millisecond; r.Met != want {
		t.Errorf("met %v with p50 %v and p99 %v", r.Met, r.P50, r.P99)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "each granted once") {
		t.Errorf("notes %v: the room's log was not checked", r.Notes)
	}
}

// A scenario without a target on PostgreSQL is measured for information,
// its SQLite target shown beside; ratio targets and their floors do not
// apply there.
func TestPostgresPlanAndTargets(t *testing.T) {
	steps, floors, err := plan([]string{"handoff-mcp"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 1 || steps[0].Name != "handoff-mcp" || len(floors) != 0 {
		t.Errorf("plan on PostgreSQL: %v, floors %v; want handoff-mcp alone", steps, floors)
	}
	if _, floors, _ := plan(nil, true); len(floors) != 0 {
		t.Errorf("every scenario on PostgreSQL measures floors %v", floors)
	}
	sc := Scenarios()[indexOf(Scenarios(), "cycle")]
	r := Result{Count: 10, Throughput: 1}
	sc.judgeOnPostgres(&r)
	if !r.Met || !strings.Contains(r.Target, "none on PostgreSQL") || !strings.Contains(r.Target, sc.Target) {
		t.Errorf("cycle on PostgreSQL: met %v, target %q", r.Met, r.Target)
	}
	for _, name := range []string{"handoff-library", "contention", "idle-waiters", "big-database", "search", "message-wake"} {
		if sc := Scenarios()[indexOf(Scenarios(), name)]; sc.PostgresTarget == "" || sc.pgMet == nil {
			t.Errorf("%s has no target on PostgreSQL", name)
		}
	}
}

// A scenario that does not apply to the run's store is not run: RunOne
// says why (Run skips it with that line).
func TestScenarioForOneStoreOnly(t *testing.T) {
	ran := false
	sc := Scenario{Name: "pg-only", Target: "anything", run: func(context.Context, *env) ([]Result, error) {
		ran = true
		return nil, nil
	}, skip: func(pg bool) string {
		if !pg {
			return "it measures what only PostgreSQL has"
		}
		return ""
	}}
	_, err := RunOne(context.Background(), sc, Options{})
	if err == nil || !strings.Contains(err.Error(), "pg-only: it measures what only PostgreSQL has") || ran {
		t.Fatalf("ran %v, err %v", ran, err)
	}
}

// A holder standing for a process of another host, marked in the
// database, is SIGKILLed while a process judging by the marks waits: the
// wait sees owner_gone each time, and the scenario is judged by its
// target for PostgreSQL.
func TestCrossHostCrashOnPostgres(t *testing.T) {
	server := pgtest.URL(t)
	sc := Scenarios()[indexOf(Scenarios(), "cross-host-crash")]
	rs, err := RunOne(context.Background(), sc, Options{Quick: true, Database: server})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Count != 5 || len(rs[0].Problems) > 0 {
		t.Fatalf("results: %+v", rs)
	}
	r := rs[0]
	t.Logf("p50 %v, p99 %v, max %v", r.P50, r.P99, r.Max)
	if r.P50 <= 0 || r.Max < r.P50 {
		t.Errorf("p50 %v, max %v: nothing was measured", r.P50, r.Max)
	}
	if r.Target != "p50 <= 200 ms" || sc.PostgresTarget != r.Target {
		t.Errorf("target %q; want PostgreSQL's %q", r.Target, sc.PostgresTarget)
	}
	if want := r.P50 <= 200*time.Millisecond; r.Met != want {
		t.Errorf("met %v with p50 %v", r.Met, r.P50)
	}
}

// On SQLite the crash on another host is skipped, with its reason: only
// PostgreSQL's marks tell it.
func TestCrossHostCrashSkippedOnSQLite(t *testing.T) {
	var logged []string
	o := Options{Quick: true, Log: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }}
	rep, err := Run(context.Background(), []string{"cross-host-crash"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 0 || len(rep.Skipped) != 1 || rep.Skipped[0].Scenario != "cross-host-crash" ||
		!strings.Contains(rep.Skipped[0].Why, "only a PostgreSQL store's marks tell") {
		t.Fatalf("on SQLite: scenarios %+v, skipped %+v", rep.Scenarios, rep.Skipped)
	}
	if want := "cross-host-crash: skipped: " + rep.Skipped[0].Why; !slices.Contains(logged, want) {
		t.Errorf("logged %q; want the line %q", logged, want)
	}
}

// On PostgreSQL message-wake's receiver waits in Sync in its own process
// on the scenario's database, every note comes back once, and the result
// is judged by the target for PostgreSQL.
func TestMessageWakeOnPostgres(t *testing.T) {
	server := pgtest.URL(t)
	sc := Scenarios()[indexOf(Scenarios(), "message-wake")]
	rs, err := RunOne(context.Background(), sc, Options{Quick: true, Database: server})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Count != 50 || len(rs[0].Problems) > 0 {
		t.Fatalf("results: %+v", rs)
	}
	r := rs[0]
	t.Logf("p50 %v, p99 %v, max %v, notes %v", r.P50, r.P99, r.Max, r.Notes)
	if r.Target != "p50 <= 6 ms" || sc.PostgresTarget != r.Target {
		t.Errorf("target %q; want PostgreSQL's %q", r.Target, sc.PostgresTarget)
	}
	if want := r.P50 <= 6*time.Millisecond; r.Met != want {
		t.Errorf("met %v with p50 %v", r.Met, r.P50)
	}
}
