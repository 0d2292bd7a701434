package liveness

import (
	"context"
	"sync"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// Hub is the liveness a hub judges its members by: a stick.GraceLiveness
// (and stick.ExitWatcher) that answers for the processes it records for
// members behind proxies (their host is identity.HubHost) from their
// proxies' streams, and for every other process as its fallback does
// (procid.Checker unless WithFallback).
//
// A member behind a proxy is Alive while a stream of its session is up,
// Gone once its proxy said its harness exited (for good) or once it has
// been out of touch for the grace asked with (a stream that comes back
// makes it Alive again), and Unknown otherwise: out of touch for less
// than the grace. A hub that starts counts every session as out of touch
// since its start, so a member whose proxy does not come back after a
// restart of the hub is gone after the grace, and one whose proxy does is
// never judged gone.
//
// It keeps one small entry per session it has judged or streamed since
// it started. A Hub is safe for concurrent use.
type Hub struct {
	host     string
	clock    stick.Clock
	fallback stick.Liveness
	started  time.Time

	mu    sync.Mutex
	links map[procKey]*link
}

// procKey is a process identity in a comparable form.
type procKey struct {
	boot  string
	pid   int
	start int64
}

func keyOf(p stick.Process) procKey {
	return procKey{boot: p.BootID, pid: p.PID, start: p.StartedAt.UnixNano()}
}

// link is what a Hub knows of one session.
type link struct {
	// streams counts the streams up.
	streams int
	// down is when the session was last in touch: when its last stream
	// dropped, or when the hub started for a session not seen since.
	down time.Time
	// gone is set once the proxy said its harness exited.
	gone bool
	// changed is closed and replaced on every change.
	changed chan struct{}
}

func (lk *link) touch() {
	close(lk.changed)
	lk.changed = make(chan struct{})
}

// HubOption tunes a Hub (NewHub).
type HubOption func(*Hub)

// WithFallback makes l judge every process that is not behind a proxy of
// this hub, instead of procid.Checker: a hub on a PostgreSQL database
// judges the members that reach the database directly, from other hosts,
// by their marks (postgres.Marks). A nil l keeps procid.Checker. The Hub
// watches such a process with l's watch, when l has one.
func WithFallback(l stick.Liveness) HubOption {
	return func(h *Hub) {
		if l != nil {
			h.fallback = l
		}
	}
}

// NewHub returns the liveness of a hub starting now on clock (nil: the
// system clock).
func NewHub(clock stick.Clock, opts ...HubOption) *Hub {
	if clock == nil {
		clock = stick.SystemClock{}
	}
	h := &Hub{host: identity.HubHost(), clock: clock, fallback: procid.Checker{}, started: clock.Now(), links: map[procKey]*link{}}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Check implements stick.Liveness: CheckWithin with the default grace.
func (h *Hub) Check(p stick.Process) procid.Status {
	return h.CheckWithin(p, stick.DefaultPolicy.ProxyGrace)
}

// Watch implements stick.ExitWatcher: WatchWithin with the default grace.
func (h *Hub) Watch(ctx context.Context, p stick.Process) (<-chan struct{}, bool) {
	return h.WatchWithin(ctx, p, stick.DefaultPolicy.ProxyGrace)
}

// CheckWithin implements stick.GraceLiveness.
func (h *Hub) CheckWithin(p stick.Process, grace time.Duration) procid.Status {
	if p.HostID != h.host {
		if g, ok := h.fallback.(stick.GraceLiveness); ok {
			return g.CheckWithin(p, grace)
		}
		return h.fallback.Check(p)
	}
	st, _, _ := h.judge(p, grace)
	return st
}

// WatchWithin implements stick.GraceLiveness: the channel closes once
// CheckWithin would answer Gone, when the proxy says so or when the grace
// runs out.
func (h *Hub) WatchWithin(ctx context.Context, p stick.Process, grace time.Duration) (<-chan struct{}, bool) {
	if p.HostID != h.host {
		switch f := h.fallback.(type) {
		case stick.GraceLiveness:
			return f.WatchWithin(ctx, p, grace)
		case stick.ExitWatcher:
			return f.Watch(ctx, p)
		}
		return nil, false
	}
	gone := make(chan struct{})
	go func() {
		for {
			st, at, changed := h.judge(p, grace)
			if st == procid.Gone {
				close(gone)
				return
			}
			var timer <-chan time.Time
			stop := func() {}
			if !at.IsZero() {
				timer, stop = h.clock.Timer(at.Sub(h.clock.Now()))
			}
			select {
			case <-changed:
			case <-timer:
			case <-ctx.Done():
				stop()
				return
			}
			stop()
		}
	}()
	return gone, true
}

// judge returns p's status with grace; while it is Unknown, also when it
// turns Gone unless something changes; and the channel that closes on the
// next change.
func (h *Hub) judge(p stick.Process, grace time.Duration) (st procid.Status, goneAt time.Time, changed <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lk := h.link(p)
	switch {
	case lk.gone:
		return procid.Gone, time.Time{}, lk.changed
	case lk.streams > 0:
		return procid.Alive, time.Time{}, lk.changed
	}
	at := lk.down.Add(grace)
	if !h.clock.Now().Before(at) {
		return procid.Gone, time.Time{}, lk.changed
	}
	return procid.Unknown, at, lk.changed
}

// link returns p's entry, made out of touch since the hub started when it
// has none; h.mu is held.
func (h *Hub) link(p stick.Process) *link {
	k := keyOf(p)
	lk, ok := h.links[k]
	if !ok {
		lk = &link{down: h.started, changed: make(chan struct{})}
		h.links[k] = lk
	}
	return lk
}

// Connect records a stream of the session whose process p is (see
// identity.SessionProcess) up, and returns the function that records it
// dropped. It fails with invalid_argument when the session's proxy said
// its harness exited: that session never comes back.
func (h *Hub) Connect(p stick.Process) (drop func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lk := h.link(p)
	if lk.gone {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "this session ended: its proxy said its harness exited").
			With("field", identity.SessionHeader).
			WithHint("a new harness gets a session of its own: restart the harness's session")
	}
	lk.streams++
	lk.touch()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			lk.streams--
			if lk.streams == 0 {
				lk.down = h.clock.Now()
			}
			lk.touch()
		})
	}, nil
}

// Gone records the proxy's word that the harness of p's session exited:
// it is Gone from now on, whatever its streams.
func (h *Hub) Gone(p stick.Process) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lk := h.link(p)
	if !lk.gone {
		lk.gone = true
		lk.touch()
	}
}

// Streams returns how many streams are up.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, lk := range h.links {
		n += lk.streams
	}
	return n
}
