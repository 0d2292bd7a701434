package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// webLive: a page watches a room of a real 'stick serve' over its live
// stream while a writer, with a store of its own as another process would
// have, posts notes through the library, one at a time: the time from the
// commit until the page has read the event off its stream, timed from the
// writer's call of Post (which returns only after it rang the bells of
// the commit, so the page often has the event first). The hub is the
// process between them: it hears of the commit through the store's
// wake-ups, reads the event and sends it.
func webLive(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "web-live", Unit: "events"}
	writer, err := joinAs(ctx, e.db, e.repo, "writer")
	if err != nil {
		return nil, err
	}
	defer writer.close()
	if _, err := busyRoom(ctx, writer, e.repo, 1_000); err != nil {
		return nil, err
	}
	secret, err := viewerToken(ctx, writer.svc)
	if err != nil {
		return nil, err
	}
	st, err := writer.svc.RoomState(ctx, writer.room)
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
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := newPageReader(h.url, secret, tr).openLive(streamCtx, writer.room, st.LastEventSeq)
	if err != nil {
		return nil, err
	}
	defer s.close()
	events := make(chan sseEvent, 16)
	ended := make(chan error, 1)
	go func() {
		for {
			ev, err := s.next(nil)
			if err != nil {
				ended <- err
				return
			}
			select {
			case events <- ev:
			case <-streamCtx.Done():
				return
			}
		}
	}()
	n := e.size(1000, 50)
	samples := make([]time.Duration, 0, n)
	calls := make([]time.Duration, 0, n)
	early := 0
	m := startMeter(h.PID())
	for i := range n {
		text := fmt.Sprintf("live note %d: the build is green again", i)
		t0 := time.Now()
		res, err := writer.svc.Post(ctx, writer.me, writer.room, stick.Note{Text: text})
		if err != nil {
			return nil, err
		}
		committed := time.Now()
		calls = append(calls, committed.Sub(t0))
		ev, err := awaitEvent(ctx, events, ended, res.Event.Seq)
		if err != nil {
			return nil, err
		}
		if ev.name != "stick" || !strings.Contains(ev.data, text) {
			r.problem("event %d came as %q without its note's text: %.200q", ev.id, ev.name, ev.data)
		}
		samples = append(samples, ev.at.Sub(t0))
		if ev.at.Before(committed) {
			early++
		}
		// As commits come on a hub that is otherwise idle.
		time.Sleep(2 * time.Millisecond)
	}
	m.stop(&r, n)
	cancel()
	s.close()
	if err := h.stop(); err != nil {
		return nil, err
	}
	r.latencies(samples)
	r.Met = r.P50 <= 20*time.Millisecond
	r.note("timed from the writer's call of Post, which commits, to the page's read; the call took p50 %s, p99 %s; %d of %d events were read before it returned",
		dur(quantileOf(calls, 0.5)), dur(quantileOf(calls, 0.99)), early, n)
	return []Result{r}, nil
}

// awaitEvent returns the event seq from the stream, failing when another
// event comes first, the stream ends or nothing comes for 10 s.
func awaitEvent(ctx context.Context, events <-chan sseEvent, ended <-chan error, seq int64) (sseEvent, error) {
	select {
	case ev := <-events:
		if ev.id != seq {
			return ev, fmt.Errorf("the stream sent event %d (%s), expected %d", ev.id, ev.name, seq)
		}
		return ev, nil
	case err := <-ended:
		return sseEvent{}, fmt.Errorf("the live stream ended: %v", err)
	case <-time.After(10 * time.Second):
		return sseEvent{}, fmt.Errorf("event %d did not come on the live stream within 10 s", seq)
	case <-ctx.Done():
		return sseEvent{}, ctx.Err()
	}
}

// quantileOf is the q-quantile of unsorted samples.
func quantileOf(samples []time.Duration, q float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return quantile(s, q)
}
