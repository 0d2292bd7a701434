package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// webRoom: a person opens the page of a room whose log holds 100,000
// events, in a browser signed in as a viewer, from a real 'stick serve':
// the time from sending GET /rooms/{id} until the first byte of the
// answer, over a keep-alive connection. Notes give, for comparison, the
// same for pages of older events from random points of the log
// (?before=) and for the page of a room with a single event.
func webRoom(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "web-room", Unit: "pages"}
	events := 100_000
	if e.o.Quick {
		events = 5_000
	}
	a, err := joinAs(ctx, e.db, e.repo, "bench")
	if err != nil {
		return nil, err
	}
	if e.o.Log != nil {
		e.o.Log("web-room: writing %d events", events)
	}
	t0 := time.Now()
	if _, err := busyRoom(ctx, a, e.repo, events); err != nil {
		a.close()
		return nil, err
	}
	built := time.Since(t0)
	marker := "the newest note of the busy room"
	last, err := a.svc.Post(ctx, a.me, a.room, stick.Note{Text: marker})
	if err != nil {
		a.close()
		return nil, err
	}
	fresh, err := a.svc.JoinPath(ctx, a.me, stick.JoinRequest{Name: "fresh"})
	if err != nil {
		a.close()
		return nil, err
	}
	secret, err := viewerToken(ctx, a.svc)
	a.close()
	if err != nil {
		return nil, err
	}
	h, err := e.startHub(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	tr := newTransport(1)
	defer tr.CloseIdleConnections()
	p := newPageReader(h.url, secret, tr)
	room := "/rooms/" + last.Event.RoomID
	// The first answers warm the hub's connections and page cache; the
	// first must be the room's page with its newest event and a link to
	// older ones.
	for i := range 10 {
		_, body, err := p.firstByte(ctx, room, i == 0)
		if err != nil {
			return nil, err
		}
		if i == 0 && (!strings.Contains(body, marker) || !strings.Contains(body, "before=")) {
			return nil, fmt.Errorf("GET %s: the page shows neither the newest note nor a link to older events: %.300s", room, body)
		}
	}
	n := e.size(1000, 50)
	samples := make([]time.Duration, 0, n)
	m := startMeter(h.PID())
	for range n {
		d, _, err := p.firstByte(ctx, room, false)
		if err != nil {
			return nil, err
		}
		samples = append(samples, d)
	}
	m.stop(&r, n)
	r.latencies(samples)
	r.Met = r.P99 <= 50*time.Millisecond
	rnd := rand.New(rand.NewPCG(13, 14))
	k := max(20, n/10)
	older, err := p.firstBytes(ctx, k, func() string {
		return room + "?before=" + strconv.FormatInt(1+rnd.Int64N(last.Event.Seq), 10)
	})
	if err != nil {
		return nil, err
	}
	newRoom, err := p.firstBytes(ctx, k, func() string { return "/rooms/" + fresh.RoomID })
	if err != nil {
		return nil, err
	}
	if err := h.stop(); err != nil {
		return nil, err
	}
	r.note("%d events (written in %.1f s); older pages p50 %s, p99 %s; a new room's page p50 %s, p99 %s",
		events+1, built.Seconds(), dur(quantile(older, 0.5)), dur(quantile(older, 0.99)), dur(quantile(newRoom, 0.5)), dur(quantile(newRoom, 0.99)))
	return []Result{r}, nil
}

// firstByte GETs path and returns the time from sending the request until
// the first byte of the answer, which must be 200; with keep it also
// returns the body, which it otherwise reads and drops.
func (p *pageReader) firstByte(ctx context.Context, path string, keep bool) (time.Duration, string, error) {
	var first time.Time
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { first = time.Now() }}
	req, err := p.request(httptrace.WithClientTrace(ctx, trace), path)
	if err != nil {
		return 0, "", err
	}
	t0 := time.Now()
	resp, err := p.hc.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	var sink io.Writer = io.Discard
	if keep || resp.StatusCode != http.StatusOK {
		sink = &body
	}
	if _, err := io.Copy(sink, resp.Body); err != nil {
		return 0, "", fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, "", fmt.Errorf("GET %s: %s: %.300s", path, resp.Status, body.String())
	}
	return first.Sub(t0), body.String(), nil
}

// firstBytes times n GETs of the paths next gives, as firstByte does, and
// returns the times sorted.
func (p *pageReader) firstBytes(ctx context.Context, n int, next func() string) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		d, _, err := p.firstByte(ctx, next(), false)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	slices.Sort(out)
	return out, nil
}
