package liveness_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

var epoch = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// session returns the process a hub records for the n-th session of a
// token.
func session(t *testing.T, n int) stick.Process {
	t.Helper()
	s, err := identity.ParseSession(fmt.Sprintf("%d.1767000000123.0123456789abcdef", 4000+n))
	if err != nil {
		t.Fatal(err)
	}
	return identity.SessionProcess(stick.Principal{TokenID: "tok_a", Name: "A"}, s)
}

func want(t *testing.T, h *liveness.Hub, p stick.Process, grace time.Duration, st procid.Status, when string) {
	t.Helper()
	if got := h.CheckWithin(p, grace); got != st {
		t.Fatalf("%s: %v, want %v", when, got, st)
	}
}

// A session is alive while a stream of it is up; out of touch it is
// unknown for the grace asked with, then gone, until a stream is up again.
// A hub counts every session out of touch since it started.
func TestHubJudgesByStreams(t *testing.T) {
	clock := testclock.New(epoch)
	h := liveness.NewHub(clock)
	p := session(t, 1)
	want(t, h, p, 3*time.Second, procid.Unknown, "a session not seen since the hub started")
	clock.Advance(3 * time.Second)
	want(t, h, p, 3*time.Second, procid.Gone, "a session not seen for the grace")
	want(t, h, p, 10*time.Second, procid.Unknown, "the same with a longer grace")

	drop, err := h.Connect(p)
	if err != nil {
		t.Fatal(err)
	}
	want(t, h, p, 3*time.Second, procid.Alive, "a stream up")
	second, _ := h.Connect(p)
	drop()
	want(t, h, p, 3*time.Second, procid.Alive, "one of two streams dropped")
	second()
	second() // a second call does nothing
	if h.Streams() != 0 {
		t.Fatalf("streams up: %d", h.Streams())
	}
	clock.Advance(2 * time.Second)
	want(t, h, p, 3*time.Second, procid.Unknown, "out of touch for less than the grace")
	clock.Advance(time.Second)
	want(t, h, p, 3*time.Second, procid.Gone, "out of touch for the grace")
	back, _ := h.Connect(p)
	defer back()
	want(t, h, p, 3*time.Second, procid.Alive, "the stream back")
	want(t, h, session(t, 2), 3*time.Second, procid.Gone, "another session, never seen")
}

// A proxy's word that its harness exited is final: the session is gone
// with a stream up, and none of it is taken again.
func TestHubGoneIsFinal(t *testing.T) {
	h := liveness.NewHub(testclock.New(epoch))
	p := session(t, 1)
	drop, _ := h.Connect(p)
	h.Gone(p)
	want(t, h, p, time.Hour, procid.Gone, "the harness exited")
	drop()
	if _, err := h.Connect(p); stick.ErrorCode(err) != stick.CodeInvalidArgument {
		t.Fatalf("a stream of an ended session: %v", err)
	}
}

// A watch fires when the proxy says its harness exited, and when the
// grace runs out on the clock; not while the stream is up.
func TestHubWatch(t *testing.T) {
	clock := testclock.New(epoch)
	h := liveness.NewHub(clock)
	ctx := context.Background()
	p, q := session(t, 1), session(t, 2)
	drop, _ := h.Connect(p)
	defer drop()
	word, ok := h.WatchWithin(ctx, p, time.Second)
	if !ok {
		t.Fatal("a session cannot be watched")
	}
	grace, _ := h.WatchWithin(ctx, q, time.Second)
	qdrop, _ := h.Connect(q)
	clock.Advance(time.Hour)
	select {
	case <-word:
		t.Fatal("the watch of a session whose stream is up fired")
	case <-grace:
		t.Fatal("the watch of a session whose stream is up fired")
	case <-time.After(50 * time.Millisecond): // nothing is due; this only gives a wrong fire its chance
	}
	h.Gone(p)
	waitClosed(t, word, "the proxy's word")
	qdrop()
	for done := false; !done; {
		clock.Advance(500 * time.Millisecond)
		select {
		case <-grace:
			done = true
		case <-time.After(10 * time.Millisecond):
			// the watch may not have set its timer yet; move the clock again
		}
	}
	if h.CheckWithin(q, time.Second) != procid.Gone {
		t.Fatal("the watch fired before the grace ran out")
	}
}

// Every process that is not a session's is judged as procid judges it.
func TestHubFallsBackToProcid(t *testing.T) {
	h := liveness.NewHub(nil)
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	if st := h.CheckWithin(self, time.Second); st != procid.Alive {
		t.Fatalf("this process: %v", st)
	}
	if st := h.Check(stick.Process{HostID: "elsewhere", PID: 7, StartedAt: epoch}); st != procid.Unknown {
		t.Fatalf("another host's process: %v", st)
	}
}

// byMarks stands for a database's marks: it proves every process of host
// "b" gone, and watches them with the grace it is asked with.
type byMarks struct{ graces []time.Duration }

func (m *byMarks) Check(p stick.Process) procid.Status { return m.CheckWithin(p, 0) }

func (m *byMarks) CheckWithin(p stick.Process, grace time.Duration) procid.Status {
	m.graces = append(m.graces, grace)
	if p.HostID == "b" {
		return procid.Gone
	}
	return procid.Unknown
}

func (m *byMarks) WatchWithin(context.Context, stick.Process, time.Duration) (<-chan struct{}, bool) {
	ch := make(chan struct{})
	close(ch)
	return ch, true
}

// A hub given a fallback judges and watches every process that is not a
// session's by it, with the room's grace; the sessions stay its own.
func TestHubWithFallback(t *testing.T) {
	m := &byMarks{}
	h := liveness.NewHub(testclock.New(epoch), liveness.WithFallback(m))
	b := stick.Process{HostID: "b", PID: 7, StartedAt: epoch}
	if st := h.CheckWithin(b, time.Minute); st != procid.Gone || len(m.graces) != 1 || m.graces[0] != time.Minute {
		t.Fatalf("a process of host b: %v (graces asked %v); want the fallback's gone, asked with a minute", st, m.graces)
	}
	if ch, ok := h.WatchWithin(context.Background(), b, time.Minute); !ok {
		t.Fatal("no watch of a process the fallback watches")
	} else {
		waitClosed(t, ch, "the fallback's watch")
	}
	s := identity.SessionProcess(stick.Principal{TokenID: "t"}, identity.Session{PID: 9, StartedAt: epoch, Key: "0123456789abcdef"})
	if st := h.CheckWithin(s, time.Minute); st != procid.Unknown || len(m.graces) != 1 {
		t.Fatalf("a session of this hub: %v; want judged by the hub (unknown within the grace), not by the fallback", st)
	}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("the watch did not fire on %s", what)
	}
}
