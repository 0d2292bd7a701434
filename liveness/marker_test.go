package liveness_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// markDB is the marks of a database two hubs share: the Marker of each,
// and the liveness that judges a process by its marks (Alive while one
// is held, Gone once every one was let go, Unknown without marks).
type markDB struct {
	mu    sync.Mutex
	marks map[string][]*bool // held, per process
}

func newMarkDB() *markDB { return &markDB{marks: map[string][]*bool{}} }

func (d *markDB) Mark(_ context.Context, p stick.Process) (func(bool), error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	held := true
	d.marks[p.String()] = append(d.marks[p.String()], &held)
	var once sync.Once
	return func(gone bool) {
		once.Do(func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			if gone {
				held = false
				return
			}
			ms := d.marks[p.String()]
			for i, m := range ms {
				if m == &held {
					d.marks[p.String()] = append(ms[:i:i], ms[i+1:]...)
				}
			}
		})
	}, nil
}

// count returns how many marks of p are held, and how many there are.
func (d *markDB) count(p stick.Process) (held, all int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range d.marks[p.String()] {
		if *m {
			held++
		}
	}
	return held, len(d.marks[p.String()])
}

func (d *markDB) Check(p stick.Process) procid.Status {
	held, all := d.count(p)
	switch {
	case held > 0:
		return procid.Alive
	case all > 0:
		return procid.Gone
	}
	return procid.Unknown
}

func (d *markDB) CheckWithin(p stick.Process, _ time.Duration) procid.Status { return d.Check(p) }

func (d *markDB) Watch(ctx context.Context, p stick.Process) (<-chan struct{}, bool) {
	return d.WatchWithin(ctx, p, 0)
}

func (d *markDB) WatchWithin(ctx context.Context, p stick.Process, _ time.Duration) (<-chan struct{}, bool) {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for {
			if held, _ := d.count(p); held == 0 {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return ch, true
}

// eventually fails t unless cond holds within 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func marksAre(t *testing.T, db *markDB, p stick.Process, held, all int, what string) {
	t.Helper()
	eventually(t, what, func() bool {
		h, a := db.count(p)
		return h == held && a == all
	})
}

func notClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
		t.Fatalf("the watch fired: %s", what)
	case <-time.After(50 * time.Millisecond):
	}
}

// Two hubs on one database and one host: a session whose stream is up on
// hub A is alive on hub B past any grace, by A's mark; a stream that drops
// keeps the mark for the grace, so that the session, back on hub B within
// it, is never gone; once its proxy says its harness exited, the mark is
// let go and the session is gone on both hubs, and B's watch fires.
func TestHubsShareStreamsByMarks(t *testing.T) {
	const grace = time.Minute
	clock := testclock.New(epoch)
	db := newMarkDB()
	a := liveness.NewHub(clock, liveness.WithFallback(db), liveness.WithMarker(db))
	b := liveness.NewHub(clock, liveness.WithFallback(db), liveness.WithMarker(db))
	s := session(t, 1)

	dropA, err := a.Connect(s)
	if err != nil {
		t.Fatal(err)
	}
	marksAre(t, db, s, 1, 1, "hub A marks the session whose stream it has up")
	clock.Advance(2 * grace)
	want(t, a, s, grace, procid.Alive, "on A, its stream up")
	want(t, b, s, grace, procid.Alive, "on B, past the grace, A's stream up")
	watch, ok := b.WatchWithin(context.Background(), s, grace)
	if !ok {
		t.Fatal("hub B cannot watch the session")
	}
	notClosed(t, watch, "A's stream is up")

	dropA()
	want(t, a, s, grace, procid.Unknown, "on A, its stream just dropped")
	clock.Advance(grace / 2)
	marksAre(t, db, s, 1, 1, "A keeps its mark within the grace")
	want(t, b, s, grace, procid.Alive, "on B, within A's grace")
	dropB, err := b.Connect(s)
	if err != nil {
		t.Fatal(err)
	}
	marksAre(t, db, s, 2, 2, "B marks the session that came back to it")
	clock.Advance(grace)
	marksAre(t, db, s, 1, 2, "A lets its mark go once the grace ran out")
	want(t, a, s, grace, procid.Alive, "on A, past its grace, by B's mark")
	notClosed(t, watch, "the session is back on B")

	b.Gone(s)
	marksAre(t, db, s, 0, 2, "B lets its mark go when the proxy says the harness exited")
	waitClosed(t, watch, "the harness's exit through hub B")
	want(t, a, s, grace, procid.Gone, "on A, every mark let go")
	want(t, b, s, grace, procid.Gone, "on B, the proxy said so")
	dropB()
}

// A stream that drops and does not come back within the grace: the mark
// is let go then, and the other hub judges the session gone; a hub
// without a marker judges as before, by its own streams alone.
func TestHubMarkLetGoAfterGrace(t *testing.T) {
	const grace = time.Minute
	clock := testclock.New(epoch)
	db := newMarkDB()
	a := liveness.NewHub(clock, liveness.WithFallback(db), liveness.WithMarker(db))
	b := liveness.NewHub(clock, liveness.WithFallback(db), liveness.WithMarker(db))
	s := session(t, 2)
	want(t, a, s, grace, procid.Unknown, "on A, the grace asked before the stream")

	drop, err := a.Connect(s)
	if err != nil {
		t.Fatal(err)
	}
	marksAre(t, db, s, 1, 1, "A marks the session")
	drop()
	watch, _ := b.WatchWithin(context.Background(), s, grace)
	clock.Advance(grace - time.Second)
	notClosed(t, watch, "within the grace")
	marksAre(t, db, s, 1, 1, "A keeps its mark within the grace")
	clock.Advance(time.Second)
	marksAre(t, db, s, 0, 1, "A lets its mark go at the end of the grace, as proof")
	waitClosed(t, watch, "the end of A's grace")
	want(t, b, s, grace, procid.Gone, "on B, the mark let go")
	want(t, a, s, grace, procid.Gone, "on A, past its grace")

	lone := liveness.NewHub(clock, liveness.WithFallback(db))
	want(t, lone, session(t, 3), grace, procid.Unknown, "a hub without a marker, a session it never saw, within the grace")
}

// A hub that holds its mark for a longer grace than the one it is asked
// with (another room's) does not judge the session gone by the shorter
// one while another hub has it: it waits for its hold to end, then
// judges by the marks.
func TestHubHoldOutlastsShorterGrace(t *testing.T) {
	clock := testclock.New(epoch)
	db := newMarkDB()
	a := liveness.NewHub(clock, liveness.WithFallback(db), liveness.WithMarker(db))
	b := liveness.NewHub(clock, liveness.WithFallback(db), liveness.WithMarker(db))
	s := session(t, 4)
	want(t, a, s, 2*time.Minute, procid.Unknown, "on A, asked with two minutes")
	drop, err := a.Connect(s)
	if err != nil {
		t.Fatal(err)
	}
	marksAre(t, db, s, 1, 1, "A marks the session")
	drop()
	if _, err := b.Connect(s); err != nil {
		t.Fatal(err)
	}
	marksAre(t, db, s, 2, 2, "B marks the session that came back to it")
	watch, _ := a.WatchWithin(context.Background(), s, time.Minute)
	clock.Advance(time.Minute)
	want(t, a, s, time.Minute, procid.Unknown, "on A, past the one-minute grace, within its two-minute hold")
	notClosed(t, watch, "A's hold is not over")
	clock.Advance(time.Minute)
	marksAre(t, db, s, 1, 2, "A lets its mark go at the end of its hold")
	eventually(t, "A judges the session alive by B's mark", func() bool { return a.CheckWithin(s, time.Minute) == procid.Alive })
	notClosed(t, watch, "the session is on B")
}
