package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stickhq/stick/stick"
)

// webIdle: 100 pages of a room stay open on a real 'stick serve', each
// with its live stream over a connection of its own, while nothing
// happens: the hub's processor time over 30 s (--span) once every stream
// is open, a span that holds each stream's keep-alive comment (every
// 25 s), and its resident memory. Then a note posted through the library
// must reach every page, which shows the streams were live.
func webIdle(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "web-idle", Unit: "pages"}
	pages, span := 100, e.span(30*time.Second, 2*time.Second)
	if e.o.Quick {
		pages = 20
	}
	a, err := joinAs(ctx, e.db, e.repo, "bench")
	if err != nil {
		return nil, err
	}
	defer a.close()
	if _, err := busyRoom(ctx, a, e.repo, 1_000); err != nil {
		return nil, err
	}
	secret, err := viewerToken(ctx, a.svc)
	if err != nil {
		return nil, err
	}
	st, err := a.svc.RoomState(ctx, a.room)
	if err != nil {
		return nil, err
	}
	h, err := e.startHub(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	tr := newTransport(pages + 1)
	defer tr.CloseIdleConnections()
	p := newPageReader(h.url, secret, tr)
	streamCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	var events, comments atomic.Int64
	var mu sync.Mutex
	got := map[int64]int{}           // how many pages read each event
	ended := make(chan error, pages) // a stream that ended by itself
	for range pages {
		s, err := p.openLive(streamCtx, a.room, st.LastEventSeq)
		if err != nil {
			return nil, err
		}
		wg.Go(func() {
			defer s.close()
			for {
				var c int
				ev, err := s.next(&c)
				comments.Add(int64(c))
				if err != nil {
					if streamCtx.Err() == nil {
						ended <- err
					}
					return
				}
				events.Add(1)
				mu.Lock()
				got[ev.id]++
				mu.Unlock()
			}
		})
	}
	watcher := newRESTClient(h.url, secret, "watcher", tr)
	if err := h.awaitPolls(ctx, watcher, pages); err != nil {
		return nil, err
	}
	m := startMeter(h.PID())
	m.childrenOnly = true
	select {
	case err := <-ended:
		return nil, fmt.Errorf("a page's live stream ended while idle: %v", err)
	case <-time.After(span):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	m.stop(&r, 0)
	now, peak, err := rss(h.PID())
	if err != nil {
		return nil, err
	}
	if n := events.Load(); n > 0 {
		r.problem("the pages read %d event(s) while nothing was written", n)
	}
	// Every page must still be live: a note reaches each.
	t0 := time.Now()
	res, err := a.svc.Post(ctx, a.me, a.room, stick.Note{Text: "are you all watching?"})
	if err != nil {
		return nil, err
	}
	reached := time.Duration(-1)
	for deadline := t0.Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		mu.Lock()
		n := got[res.Event.Seq]
		mu.Unlock()
		if n == pages {
			reached = time.Since(t0)
			break
		}
	}
	cancel()
	wg.Wait()
	if err := h.stop(); err != nil {
		return nil, err
	}
	if reached < 0 {
		mu.Lock()
		r.problem("a note posted after the idle span reached %d of %d pages within 10 s", got[res.Event.Seq], pages)
		mu.Unlock()
	}
	r.Count, r.Throughput = pages, 0
	r.Met = r.CPU < 2
	r.note("%d pages for %v: the hub used %.2f%% of one core; resident memory %.1f MB, peak %.1f MB; %d keep-alive comment(s); then a note reached every page in %s",
		pages, span, r.CPU, float64(now)/(1<<20), float64(peak)/(1<<20), comments.Load(), dur(max(reached, 0)))
	return []Result{r}, nil
}
