package bench

import (
	"context"
	"time"

	"github.com/stickhq/stick/stick"
)

// cycle: one process claims and releases as fast as it can.
func cycle(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "cycle", Unit: "cycles"}
	a, err := joinAs(ctx, e.db, e.repo, "cycler")
	if err != nil {
		return nil, err
	}
	defer a.close()
	n, span := e.o.Count, e.span(3*time.Second, 300*time.Millisecond)
	h := stick.Handoff{Status: "cycle done", NextAction: "claim again"}
	var samples []time.Duration
	m := startMeter()
	for deadline := time.Now().Add(span); n > 0 && len(samples) < n || n <= 0 && time.Now().Before(deadline); {
		t0 := time.Now()
		w, err := a.wait(ctx, 0)
		if err != nil {
			return nil, err
		}
		if w.Status != stick.YourTurn {
			return nil, errUnexpected(w)
		}
		if _, err := a.svc.Release(ctx, a.me, w.Lease(), h); err != nil {
			return nil, err
		}
		samples = append(samples, time.Since(t0))
	}
	m.stop(&r, len(samples))
	r.latencies(samples)
	r.Met = r.Throughput >= 5000
	return []Result{r}, nil
}
