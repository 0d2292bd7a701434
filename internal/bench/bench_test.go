package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/reexec"

	"github.com/stickhq/stick/internal/pgtest"
)

func TestMain(m *testing.M) {
	reexec.Main()
	stop := pgtest.Start()
	code := m.Run()
	stop()
	os.Exit(code)
}

// TestScenariosQuick runs every scenario at its quick size: each must
// run, measure something, and find no problem (its room's log right, no
// fencing violation, no error seen). Speed targets are not judged here
// (the race detector and a busy machine distort them); stickbench and the
// benchmarks measure them.
func TestScenariosQuick(t *testing.T) {
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			if why := sc.skipFor(false); why != "" {
				t.Skipf("not on SQLite: %s", why)
			}
			rs, err := RunOne(context.Background(), sc, Options{Quick: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				t.Logf("%s: %d %s, p50 %v, p99 %v, max %v, %.0f/s, CPU %.1f%%, notes %v",
					r.Scenario, r.Count, r.Unit, r.P50, r.P99, r.Max, r.Throughput, r.CPU, r.Notes)
				if len(r.Problems) > 0 {
					t.Errorf("%s: %v", r.Scenario, r.Problems)
				}
			}
		})
	}
}

// TestRunRejectsUnknownScenario names the scenarios and floors that exist.
func TestRunRejectsUnknownScenario(t *testing.T) {
	_, err := Run(context.Background(), []string{"handoff"}, Options{})
	if err == nil || !strings.Contains(err.Error(), `no scenario or floor named "handoff"`) || !strings.Contains(err.Error(), "handoff-library") ||
		!strings.Contains(err.Error(), "mcp-stdio") {
		t.Fatalf("err = %v", err)
	}
}

// TestQuantile checks the nearest-rank percentiles the table shows.
func TestQuantile(t *testing.T) {
	// Nearest rank: the p99 of 1..200 is the 198th value.
	var big []time.Duration
	for i := 1; i <= 200; i++ {
		big = append(big, time.Duration(i))
	}
	if q := quantile(big, 0.99); q != 198 {
		t.Errorf("p99 of 1..200 = %v, want 198", q)
	}
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	if q := quantile(s, 0.5); q != 50 {
		t.Errorf("p50 of 1..100 = %v", q)
	}
	if q := quantile(s, 0.99); q != 99 {
		t.Errorf("p99 of 1..100 = %v", q)
	}
	if q := quantile(s[:1], 0.99); q != 1 {
		t.Errorf("p99 of one sample = %v", q)
	}
}

// TestNothingMeasuredNeverMeets: a result without samples, or with a
// problem, misses its target however fast it looks.
func TestNothingMeasuredNeverMeets(t *testing.T) {
	sc := Scenario{Name: "empty", Target: "anything", run: func(context.Context, *env) ([]Result, error) {
		return []Result{{Scenario: "empty", Met: true}, {Scenario: "bad", Count: 5, Met: true, Problems: []string{"turn 3 granted twice"}}}, nil
	}}
	rs, err := RunOne(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Met {
			t.Errorf("%s met its target: %+v", r.Scenario, r)
		}
	}
	if len(rs[0].Problems) != 1 || rs[0].Problems[0] != "measured nothing" {
		t.Errorf("empty result's problems: %v", rs[0].Problems)
	}
}

// TestSpanSetsTheMeasuredSpan: --span replaces the span a scenario that
// runs for a time measures, whatever its own.
func TestSpanSetsTheMeasuredSpan(t *testing.T) {
	sc := Scenarios()[indexOf(Scenarios(), "web-idle")]
	rs, err := RunOne(context.Background(), sc, Options{Quick: true, Span: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || len(rs[0].Notes) == 0 || !strings.Contains(rs[0].Notes[0], "pages for 1.5s:") {
		t.Fatalf("web-idle with a span of 1.5 s: %+v", rs)
	}
}
