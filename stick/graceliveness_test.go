package stick_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// linkLiveness is a GraceLiveness whose verdict a test sets, as a hub's
// verdict on a member behind a proxy follows the proxy's stream. It
// records the graces it is asked with.
type linkLiveness struct {
	t       *testing.T
	mu      sync.Mutex
	status  procid.Status
	graces  []time.Duration
	changed chan struct{}
}

func newLinkLiveness(t *testing.T) *linkLiveness {
	return &linkLiveness{t: t, status: procid.Alive, changed: make(chan struct{})}
}

func (l *linkLiveness) Check(stick.Process) procid.Status {
	l.t.Error("a Service asked Check of a GraceLiveness")
	return procid.Unknown
}

func (l *linkLiveness) CheckWithin(_ stick.Process, grace time.Duration) procid.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.graces = append(l.graces, grace)
	return l.status
}

// WatchWithin closes its channel once the verdict is Gone.
func (l *linkLiveness) WatchWithin(ctx context.Context, p stick.Process, grace time.Duration) (<-chan struct{}, bool) {
	ch := make(chan struct{})
	go func() {
		for {
			l.mu.Lock()
			st, changed := l.status, l.changed
			l.mu.Unlock()
			if st == procid.Gone {
				close(ch)
				return
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, true
}

func (l *linkLiveness) set(st procid.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.status = st
	close(l.changed)
	l.changed = make(chan struct{})
}

// asked returns how many times the liveness was asked.
func (l *linkLiveness) asked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.graces)
}

func (l *linkLiveness) askedWith(grace time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.graces, grace)
}

// remoteAgent is a caller whose process a hub judges by its proxy's
// stream.
func remoteAgent(id string, pid int) stick.Caller {
	return stick.Caller{AgentID: id, Kind: stick.KindHarness,
		Process: stick.Process{HostID: "hub:test", BootID: id, PID: pid, StartedAt: epoch}}
}

// remoteRoom is a room of two members behind proxies, "holder" and "peer",
// on a Service whose liveness the test sets; it returns the holder and the
// room.
func remoteRoom(t *testing.T) (*linkLiveness, *env, stick.Caller, string) {
	link := newLinkLiveness(t)
	e := newEnv(t, stick.WithLiveness(link))
	holder := remoteAgent("holder", 10)
	room := e.join(holder).RoomID
	e.join(remoteAgent("peer", 11))
	return link, e, holder, room
}

// A GraceLiveness is asked with the room's proxy grace, never through
// Check: its Gone makes the holder owner_gone at once, and, since a
// connection can come back, a member judged gone is active again once its
// connection is (a Gone of Check is remembered for good).
func TestGraceLivenessJudgesWithTheRoomsGrace(t *testing.T) {
	link, e, holder, room := remoteRoom(t)
	grace := 3 * time.Second
	if _, err := e.svc.SetPolicy(e.ctx, holder, room, stick.PolicyUpdate{ProxyGrace: &grace}); err != nil {
		t.Fatal(err)
	}
	e.claim(holder, room)
	if st := e.state(room); st.State != stick.StateOwned || st.Policy.ProxyGrace != grace {
		t.Fatalf("a holder whose stream is up: %+v", st)
	}
	if !link.askedWith(grace) {
		t.Fatalf("the liveness was asked with %v, not the room's grace %v", link.graces, grace)
	}
	link.set(procid.Gone)
	e.clock.Advance(time.Second) // past the verdict cache's poll
	st := e.state(room)
	if st.State != stick.StateOwnerGone || st.Members[0].Status != stick.MemberGone || st.Members[1].Status != stick.MemberGone {
		t.Fatalf("the stream gone: %+v", st)
	}
	link.set(procid.Alive)
	e.clock.Advance(time.Second) // past the verdict cache's poll
	if st := e.state(room); st.State != stick.StateOwned || st.Members[0].Status != stick.MemberActive || st.Members[1].Status != stick.MemberActive {
		t.Fatalf("the stream back: %+v", st)
	}
}

// A waiter follows the holder's connection through WatchWithin, also
// while the holder is out of touch (unknown, within its grace): it sees
// owner_gone as soon as the liveness says so, with no clock moving.
func TestGraceLivenessWakesWaiters(t *testing.T) {
	for _, before := range []procid.Status{procid.Alive, procid.Unknown} {
		t.Run(before.String(), func(t *testing.T) { testGraceWakes(t, before) })
	}
}

func testGraceWakes(t *testing.T, before procid.Status) {
	link, e, holder, room := remoteRoom(t)
	peer := remoteAgent("peer", 11)
	e.claim(holder, room)
	link.set(before)
	asked := link.asked()
	done := make(chan stick.WaitResult, 1)
	go func() {
		wait := 10 * time.Minute
		res, err := e.svc.WaitForTurn(e.ctx, peer, stick.WaitRequest{RoomID: room, MaxWait: &wait})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// Once the waiter has judged the holder, it blocks; a Gone from then
	// on reaches it only through its watch.
	for deadline := time.Now().Add(10 * time.Second); link.asked() == asked; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the waiter never judged the holder")
		}
	}
	link.set(procid.Gone)
	select {
	case res := <-done:
		if res.Status != stick.TakeoverAvailable || res.Reason != string(stick.ReasonOwnerGone) {
			t.Fatalf("wait: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not see the holder's connection gone")
	}
}

// A proxy grace outside the bounds every timeout has is refused.
func TestProxyGraceBounds(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	for _, d := range []time.Duration{time.Millisecond, 31 * 24 * time.Hour} {
		_, err := e.svc.SetPolicy(e.ctx, a, room, stick.PolicyUpdate{ProxyGrace: &d})
		if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "proxy_grace_ms" {
			t.Fatalf("grace %v: %v", d, se.Details)
		}
	}
	if _, err := stick.New(openStore(t), stick.WithDefaults(stick.Policy{ProxyGrace: -time.Second})); stick.ErrorCode(err) != stick.CodeInvalidArgument {
		t.Fatalf("a default grace below the bounds: %v", err)
	}
}
