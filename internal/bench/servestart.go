package bench

import (
	"context"
	"net/http"
	"time"
)

// serveStartUp: spawn 'stick serve' on a database with tokens until it
// answers its first request, an authenticated list of the rooms; then
// its peak resident memory, and a stop by SIGTERM.
func serveStartUp(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "serve-start-up", Unit: "starts"}
	secrets, err := makeTokens(ctx, e.db, "team-a", "team-b", "team-c")
	if err != nil {
		return nil, err
	}
	n := e.size(30, 5)
	var samples, listening []time.Duration
	var peak uint64
	m := &meter{wall: time.Now(), childrenOnly: true}
	for i := -1; i < n; i++ { // the first start warms the page cache and is not counted
		first, listened, hwm, err := e.serveOnce(ctx, secrets[0], m)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			samples, listening = append(samples, first), append(listening, listened)
			peak = max(peak, hwm)
		} else {
			m.wall = time.Now()
		}
	}
	m.stop(&r, len(samples))
	r.Throughput = 0
	r.latencies(samples)
	r.Met = r.P50 <= 50*time.Millisecond
	var l Result
	l.latencies(listening)
	r.note("it says it listens after %s (p50); peak resident memory %.1f MB after the first answer", dur(l.P50), float64(peak)/(1<<20))
	return []Result{r}, nil
}

// serveOnce starts 'stick serve', sends GET /api/v1/rooms with token as
// soon as it says it listens, and returns the time from spawn to the
// answer and to its saying it listens, and its peak resident memory. It
// stops the hub and counts its processor time in m.
func (e *env) serveOnce(ctx context.Context, token string, m *meter) (first, listened time.Duration, peak uint64, err error) {
	h, err := e.startHub(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	defer func() { _ = h.Close() }()
	tr := newTransport(1)
	defer tr.CloseIdleConnections()
	c := newRESTClient(h.url, token, "bench", tr)
	if err := c.call(ctx, http.MethodGet, "/rooms", nil, nil); err != nil {
		return 0, 0, 0, err
	}
	first, listened = time.Since(h.started), h.listening.Sub(h.started)
	if _, peak, err = rss(h.PID()); err != nil {
		return 0, 0, 0, err
	}
	err = h.stop()
	m.addReaped(h.State())
	return first, listened, peak, err
}
