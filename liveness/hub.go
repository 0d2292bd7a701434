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
// Several hubs on one database server share their streams through a
// Marker (WithMarker): a hub holds a mark for each session whose stream
// it has up, and keeps it for the grace after the stream drops; it lets
// the mark go, keeping it as proof, once the proxy said its harness
// exited or the grace ran out. A session of which this hub has no stream
// is then judged by its marks, through the fallback: Alive while another
// hub holds one, Gone once every one was let go, and as above when it
// has none.
//
// It keeps one small entry per session it has judged or streamed since
// it started. A Hub is safe for concurrent use.
type Hub struct {
	host     string
	clock    stick.Clock
	fallback stick.Liveness
	marker   Marker
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
	// grace is the longest grace the session was judged with (zero: none
	// yet); the hub keeps its mark that long after its last stream drops.
	grace time.Duration
	// holding is set from the drop of the last stream until the grace
	// runs out, while the hub still stands for the session.
	holding bool
	// hold counts the holds begun, so that a timer of an earlier one does
	// nothing.
	hold int
	// mark ends the mark held for the session (nil: none); marking is set
	// while one is being taken.
	mark    func(gone bool)
	marking bool
	// ending is set while the mark is being let go.
	ending bool
	// p is the session's process.
	p stick.Process
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

// Marker holds marks for the sessions a hub stands for, in the database
// the hubs of a team share (a postgres.Store's Vouch, through package
// storeurl): while a mark is held every hub judges its session alive, and
// once every mark of it was let go, gone.
type Marker interface {
	// Mark holds a mark for p until end is called: end(true) lets it go
	// and keeps it as proof that p is gone, end(false) takes it away.
	Mark(ctx context.Context, p stick.Process) (end func(gone bool), err error)
}

// markWait bounds how long a Hub waits for a mark to be taken; a mark
// that cannot be taken leaves the session to be judged by this hub alone.
const markWait = 30 * time.Second

// WithMarker makes the hub mark the sessions whose streams it holds with
// m, and judge the sessions it has no stream of by the fallback, which
// judges them by their marks (postgres.Marks): the hubs on one database
// server then know each other's streams. A nil m marks nothing.
func WithMarker(m Marker) HubOption {
	return func(h *Hub) { h.marker = m }
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
		return h.fallbackWithin(p, grace)
	}
	st, _, _, _ := h.judge(p, grace)
	return st
}

func (h *Hub) fallbackWithin(p stick.Process, grace time.Duration) procid.Status {
	if g, ok := h.fallback.(stick.GraceLiveness); ok {
		return g.CheckWithin(p, grace)
	}
	return h.fallback.Check(p)
}

func (h *Hub) fallbackWatch(ctx context.Context, p stick.Process, grace time.Duration) (<-chan struct{}, bool) {
	switch f := h.fallback.(type) {
	case stick.GraceLiveness:
		return f.WatchWithin(ctx, p, grace)
	case stick.ExitWatcher:
		return f.Watch(ctx, p)
	}
	return nil, false
}

// repoll is how often a watch looks again at a session that another hub
// stands for, when the fallback cannot watch it.
const repoll = time.Second

// WatchWithin implements stick.GraceLiveness: the channel closes once
// CheckWithin would answer Gone, when the proxy says so, when the grace
// runs out, or when the marks say so.
func (h *Hub) WatchWithin(ctx context.Context, p stick.Process, grace time.Duration) (<-chan struct{}, bool) {
	if p.HostID != h.host {
		return h.fallbackWatch(ctx, p, grace)
	}
	gone := make(chan struct{})
	go func() {
		for {
			st, at, changed, marked := h.judge(p, grace)
			if st == procid.Gone {
				close(gone)
				return
			}
			var timer, marks <-chan time.Time
			stop := func() {}
			if !at.IsZero() {
				timer, stop = h.clock.Timer(at.Sub(h.clock.Now()))
			}
			wctx, cancel := context.WithCancel(ctx)
			var fired <-chan struct{}
			if marked {
				var ok bool
				if fired, ok = h.fallbackWatch(wctx, p, grace); !ok {
					poll := time.NewTimer(repoll)
					marks = poll.C
					stop = func() { poll.Stop() }
				}
			}
			select {
			case <-changed:
			case <-timer:
			case <-fired:
			case <-marks:
			case <-ctx.Done():
				stop()
				cancel()
				return
			}
			stop()
			cancel()
		}
	}()
	return gone, true
}

// judge returns p's status with grace; while it is Unknown, also when it
// turns Gone unless something changes; the channel that closes on the
// next change; and whether the status came from the marks (Alive while
// another hub stands for p: the fallback's watch tells when that ends).
func (h *Hub) judge(p stick.Process, grace time.Duration) (st procid.Status, goneAt time.Time, changed <-chan struct{}, marked bool) {
	h.mu.Lock()
	lk := h.link(p)
	if grace > lk.grace {
		lk.grace = grace
	}
	changed = lk.changed
	switch {
	case lk.gone:
		h.mu.Unlock()
		return procid.Gone, time.Time{}, changed, false
	case lk.streams > 0:
		h.mu.Unlock()
		return procid.Alive, time.Time{}, changed, false
	}
	// While this hub stands for p (its mark is held, taken or let go)
	// the marks would only echo it: it waits for the end of its hold.
	stands := lk.holding || lk.mark != nil || lk.marking || lk.ending
	at := lk.down.Add(grace)
	h.mu.Unlock()
	if stands {
		if !h.clock.Now().Before(at) {
			// Past the grace asked with, the hold is ending: the marks
			// decide once it has (its end is a change).
			return procid.Unknown, time.Time{}, changed, false
		}
		return procid.Unknown, at, changed, false
	}
	if h.marker != nil {
		switch h.fallbackWithin(p, grace) {
		case procid.Alive:
			return procid.Alive, time.Time{}, changed, true
		case procid.Gone:
			return procid.Gone, time.Time{}, changed, false
		}
	}
	if !h.clock.Now().Before(at) {
		return procid.Gone, time.Time{}, changed, false
	}
	return procid.Unknown, at, changed, false
}

// link returns p's entry, made out of touch since the hub started when it
// has none; h.mu is held.
func (h *Hub) link(p stick.Process) *link {
	k := keyOf(p)
	lk, ok := h.links[k]
	if !ok {
		lk = &link{down: h.started, changed: make(chan struct{}), p: p}
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
	lk.holding = false
	h.settle(lk)
	lk.touch()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			lk.streams--
			if lk.streams == 0 {
				lk.down = h.clock.Now()
				h.holdMark(lk)
			}
			lk.touch()
		})
	}, nil
}

// holdMark keeps the mark of lk's session, when there is one, for its
// grace, and lets it go then unless a stream came back; h.mu is held.
func (h *Hub) holdMark(lk *link) {
	if h.marker == nil || lk.gone || (lk.mark == nil && !lk.marking) {
		return
	}
	grace := lk.grace
	if grace <= 0 {
		grace = stick.DefaultPolicy.ProxyGrace
	}
	lk.holding = true
	lk.hold++
	n := lk.hold
	timer, _ := h.clock.Timer(grace)
	go func() {
		<-timer
		h.mu.Lock()
		defer h.mu.Unlock()
		if lk.hold == n && lk.holding {
			lk.holding = false
			h.settle(lk)
			lk.touch()
		}
	}()
}

// settle takes a mark for lk's session when it wants one and has none,
// and lets it go, as proof, when it wants none any more; h.mu is held.
func (h *Hub) settle(lk *link) {
	if h.marker == nil || lk.marking || lk.ending {
		return // settled again once that is done
	}
	want := !lk.gone && (lk.streams > 0 || lk.holding)
	switch {
	case want && lk.mark == nil:
		lk.marking = true
		go h.takeMark(lk)
	case !want && lk.mark != nil:
		end := lk.mark
		lk.mark, lk.ending = nil, true
		go func() {
			end(true)
			h.mu.Lock()
			defer h.mu.Unlock()
			lk.ending = false
			h.settle(lk)
			lk.touch()
		}()
	}
}

// takeMark takes the mark of lk's session, then settles what the session
// wants by now. A mark that cannot be taken is not tried again before
// the session's next stream: meanwhile this hub alone judges it.
func (h *Hub) takeMark(lk *link) {
	ctx, cancel := context.WithTimeout(context.Background(), markWait)
	defer cancel()
	end, err := h.marker.Mark(ctx, lk.p)
	h.mu.Lock()
	defer h.mu.Unlock()
	lk.marking = false
	if err == nil {
		lk.mark = end
		h.settle(lk)
	}
	lk.touch()
}

// Gone records the proxy's word that the harness of p's session exited:
// it is Gone from now on, whatever its streams, and its mark is let go as
// proof.
func (h *Hub) Gone(p stick.Process) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lk := h.link(p)
	if !lk.gone {
		lk.gone = true
		h.settle(lk)
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
