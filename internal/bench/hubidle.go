package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stickhq/stick/stick"
)

// hubIdle: 200 members long-poll one hub for their turn while another
// holds the stick, each over its own connection, as plain HTTP clients
// (of this process) would: each asks for the room's default wait (30 s)
// and asks again when it ends with not_yet. Measured over 30 s once every
// poll is open: the hub's processor time and its peak resident memory.
func hubIdle(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "hub-idle", Unit: "waiters"}
	waiters, span := 200, e.span(30*time.Second, 2*time.Second)
	if e.o.Quick {
		waiters = 20
	}
	h, secrets, err := e.startHubWithTokens(ctx, "team")
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	tr := newTransport(waiters + 2)
	defer tr.CloseIdleConnections()
	holder := newRESTClient(h.url, secrets[0], "holder", tr)
	room, err := holder.join(ctx, hubRoom)
	if err != nil {
		return nil, err
	}
	if w, err := holder.wait(ctx, room, 0); err != nil || w.Status != stick.YourTurn {
		return nil, fmt.Errorf("holder: %v %v", w.Status, err)
	}
	clients := make([]*restClient, waiters)
	for i := range clients {
		clients[i] = newRESTClient(h.url, secrets[0], fmt.Sprintf("w%03d", i), tr)
		if _, err := clients[i].join(ctx, hubRoom); err != nil {
			return nil, err
		}
	}
	waitCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	var polls atomic.Int64
	returned := make(chan error, waiters)
	for _, c := range clients {
		wg.Go(func() {
			for {
				polls.Add(1)
				w, err := c.wait(waitCtx, room, -1)
				switch {
				case waitCtx.Err() != nil:
					return
				case err == nil && w.Status == stick.NotYet:
					continue
				}
				returned <- fmt.Errorf("a waiter's long poll ended with %s (%s) %v", w.Status, w.Reason, err)
				return
			}
		})
	}
	if err := h.awaitPolls(ctx, holder, waiters); err != nil {
		return nil, err
	}
	before := polls.Load()
	m := startMeter(h.PID())
	m.childrenOnly = true
	select {
	case err := <-returned:
		return nil, err
	case <-time.After(span):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	m.stop(&r, 0)
	again := polls.Load() - before
	now, peak, err := rss(h.PID())
	if err != nil {
		return nil, err
	}
	cancel()
	wg.Wait()
	if err := h.stop(); err != nil {
		return nil, err
	}
	r.Count, r.Throughput = waiters, 0
	peakMB := float64(peak) / (1 << 20)
	r.Met = r.CPU < 3 && peakMB <= 80
	r.note("%d waiters for %v: the hub used %.2f%% of one core; resident memory %.1f MB, peak %.1f MB; %d polls asked again",
		waiters, span, r.CPU, float64(now)/(1<<20), peakMB, again)
	return []Result{r}, nil
}

// awaitPolls returns once the hub has n long polls open (its metric
// stick_long_polls_open), asking as c, or fails after a minute.
func (h *hub) awaitPolls(ctx context.Context, c *restClient, n int) error {
	deadline := time.Now().Add(time.Minute)
	for {
		open, err := c.metric(ctx, h.url, "stick_long_polls_open")
		if err != nil {
			return err
		}
		if open >= float64(n) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%v of %d long polls open after a minute", open, n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
