package bench

import (
	"context"
	"time"

	"github.com/stickhq/stick/stick"
)

// syncBacklog: a member that has not synced while 10,000 events piled up
// catches up in pages of 50; each page is timed.
func syncBacklog(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "sync-backlog", Unit: "pages"}
	pending := 10_000
	if e.o.Quick {
		pending = 1_000
	}
	writer, err := joinAs(ctx, e.db, e.repo, "writer")
	if err != nil {
		return nil, err
	}
	defer writer.close()
	reader, err := joinAs(ctx, e.db, e.repo, "reader")
	if err != nil {
		return nil, err
	}
	defer reader.close()
	if _, err := fillEvents(ctx, writer, []string{writer.room}, pending); err != nil {
		return nil, err
	}
	rounds := 10 // catch up ten times: 2,000 pages, enough for a stable p99
	switch {
	case e.o.Count > 0:
		rounds = max(1, e.o.Count/(pending/50))
	case e.o.Quick:
		rounds = 2
	}
	var samples []time.Duration
	got := 0
	m := startMeter()
	for round := range rounds {
		req := stick.SyncRequest{MaxItems: 50, CursorReset: round > 0}
		for {
			t0 := time.Now()
			res, err := reader.svc.Sync(ctx, reader.me, reader.room, req)
			if err != nil {
				return nil, err
			}
			samples = append(samples, time.Since(t0))
			got += len(res.Received)
			req.CursorReset = false
			if !res.HasMore {
				break
			}
		}
	}
	m.stop(&r, len(samples))
	r.latencies(samples)
	if want := rounds * (pending + 1); got != want { // the writer's join too
		r.problem("received %d events over %d catch-ups, want %d", got, rounds, want)
	}
	r.Met = r.P99 <= 5*time.Millisecond
	r.note("%d events pending, pages of 50, caught up %d time(s)", pending, rounds)
	return []Result{r}, nil
}
