package stick_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// gatedStore delivers change notifications only when the test fires them,
// as a late filesystem event or the fallback poll would.
type gatedStore struct {
	stick.Store
	mu sync.Mutex
	ch chan struct{}
}

func (g *gatedStore) Changed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ch
}

func (g *gatedStore) fire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.ch)
	g.ch = make(chan struct{})
}

// A cursor wait whose presence refresh runs before the change notification
// must still return as soon as the log has moved past the cursor.
func TestWaitCursorAfterPresenceRefresh(t *testing.T) {
	e := newEnv(t)
	g := &gatedStore{Store: e.store, ch: make(chan struct{})}
	svc := newService(t, g, stick.WithClock(e.clock), stick.WithLiveness(e.probes),
		stick.WithDefaults(stick.Policy{PresenceTTL: 2 * time.Minute, HeartbeatInterval: time.Minute}))
	a, b := agent("a"), agent("b")
	j, err := svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: e.repo})
	if err != nil {
		t.Fatal(err)
	}
	room := j.RoomID
	if _, err := svc.JoinPath(e.ctx, b, stick.JoinRequest{Path: e.repo}); err != nil {
		t.Fatal(err)
	}
	if w, _ := svc.WaitForTurn(e.ctx, a, stick.WaitRequest{RoomID: room, MaxWait: noWait()}); w.Status != stick.YourTurn {
		t.Fatal(w)
	}
	first, err := svc.WaitForTurn(e.ctx, b, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
	if err != nil {
		t.Fatal(err)
	}
	long := 5 * time.Minute
	ch := make(chan waitOutcome, 1)
	go func() {
		res, err := svc.WaitForTurn(e.ctx, b, stick.WaitRequest{RoomID: room, Cursor: first.Cursor, MaxWait: &long})
		ch <- waitOutcome{res, err}
	}()
	e.settle(3) // max wait, lease expiry, presence refresh
	if _, err := svc.AppendNote(e.ctx, a, room, "the log moves"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(61 * time.Second) // the presence refresh runs first
	select {
	case o := <-ch:
		if o.err != nil || o.res.Status != stick.NotYet || o.res.Cursor == first.Cursor {
			t.Fatalf("%+v %v", o.res, o.err)
		}
		return
	case <-time.After(time.Second):
	}
	g.fire()
	if o := outcome(t, ch); o.res.Cursor == first.Cursor {
		t.Fatalf("cursor did not move: %+v", o.res)
	}
}

// A holder asking again gets the truth: a takeover grant carries no handoff,
// and an expired lease comes back renewed, since asking is a call of the
// holder and every such call counts as a heartbeat.
func TestRedeliveryTellsTheTruth(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	e.release(a, e.claim(a, room).Lease(), "for b")
	e.clock.Advance(21 * time.Minute)
	tk, err := e.svc.Takeover(e.ctx, c, room, 1, "claim timeout")
	if err != nil {
		t.Fatal(err)
	}
	w := e.claim(c, room)
	if w.LeaseID != tk.LeaseID || w.Reason != string(stick.GrantTakeover) || w.Handoff != nil || w.FromAgentID != "" {
		t.Fatalf("redelivery after takeover: %+v", w)
	}
	e.clock.Advance(50 * time.Minute)
	w = e.claim(c, room)
	if w.RoomState != stick.StateOwned || !w.LeaseExpiresAt.Equal(e.clock.Now().Add(45*time.Minute)) ||
		!w.NextHeartbeatAt.Equal(e.clock.Now().Add(5*time.Minute)) {
		t.Fatalf("redelivery of an expired lease must renew it: %+v", w)
	}
}

// Two live processes under one agent id never both get the lease.
func TestSameAgentIDOtherProcessDoesNotGetLease(t *testing.T) {
	e := newEnv(t)
	p1, _ := liveAgent(t, "human:ana")
	p2, _ := liveAgent(t, "human:ana")
	room := e.join(p1).RoomID
	w1 := e.claim(p1, room)
	if w2 := e.try(p2, room); w2.Status != stick.NotYet || w2.LeaseID != "" {
		t.Fatalf("a second live process with the same id got %+v", w2)
	}
	if again := e.claim(p1, room); again.LeaseID != w1.LeaseID {
		t.Fatal("the claiming process itself gets its lease back")
	}
}

// disagreeing says a process is alive while its exit watch fires at once.
type disagreeing struct{ checks atomic.Int64 }

func (d *disagreeing) Check(stick.Process) procid.Status { d.checks.Add(1); return procid.Alive }
func (d *disagreeing) Watch(context.Context, stick.Process) (<-chan struct{}, bool) {
	ch := make(chan struct{})
	close(ch)
	return ch, true
}

// A watch that fires while Check still finds the process alive falls back to
// polling instead of spinning.
func TestExitWatchDisagreementDoesNotSpin(t *testing.T) {
	e := newEnv(t)
	live := &disagreeing{}
	svc := newService(t, e.store, stick.WithClock(e.clock), stick.WithLiveness(live))
	a := stick.Caller{AgentID: "a", Kind: stick.KindProcess, Process: procid.Identity{HostID: "h", PID: 1, StartedAt: epoch}}
	b := agent("b")
	j, _ := svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: e.repo})
	if _, err := svc.JoinPath(e.ctx, b, stick.JoinRequest{Path: e.repo}); err != nil {
		t.Fatal(err)
	}
	if w, _ := svc.WaitForTurn(e.ctx, a, stick.WaitRequest{RoomID: j.RoomID, MaxWait: noWait()}); w.Status != stick.YourTurn {
		t.Fatal(w)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 300*time.Millisecond)
	defer cancel()
	before := live.checks.Load()
	if _, err := svc.WaitForTurn(ctx, b, stick.WaitRequest{RoomID: j.RoomID}); err == nil {
		t.Fatal("the wait must end by its context")
	}
	if n := live.checks.Load() - before; n > 5 {
		t.Fatalf("%d full re-reads in 300 ms: the waiter spins", n)
	}
}

// force_new with no room on the chain creates the room at the workspace root.
func TestForceNewWithoutRoomCreatesAtRoot(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.repo, "pkg", "x")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	j, err := e.svc.JoinPath(e.ctx, agent("a"), stick.JoinRequest{Path: sub, ForceNew: true})
	if err != nil || j.CanonicalPath != e.repo || j.Warning != "" {
		t.Fatalf("%+v %v", j, err)
	}
	if again := e.join(agent("b")); again.RoomID != j.RoomID {
		t.Fatal("the workspace must not be split")
	}
}

// A recipient that leaves hands the reservation on, but never back to the
// member who passed it; with nobody else the room goes idle.
func TestLeaveByRecipientSkipsPriorOwner(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	l := e.claim(a, room).Lease()
	if _, err := e.svc.Pass(e.ctx, a, l, "c", handoff("for c")); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Leave(e.ctx, c, room); err != nil {
		t.Fatal(err)
	}
	if st := e.state(room); st.ReservedFor != "b" {
		t.Fatalf("after c left: %+v", st)
	}
	got := e.claim(b, room)
	if got.Reason != string(stick.GrantSequence) || got.Handoff.Status != "for c" {
		t.Fatalf("b was not passed to, it inherits the reservation: %+v", got)
	}
	if _, err := e.svc.Pass(e.ctx, b, got.Lease(), "a", handoff("for a")); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Leave(e.ctx, a, room); err != nil {
		t.Fatal(err)
	}
	if st := e.state(room); st.StoredState != stick.StateIdle || st.ReservedFor != "" {
		t.Fatalf("with only the prior owner left, the room is idle: %+v", st)
	}
}

func TestMoreInvalidInput(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	_, err := e.svc.SetPolicy(e.ctx, a, room, stick.PolicyUpdate{})
	wantCode(t, err, stick.CodeInvalidArgument)
	bad := a
	bad.DisplayName = "evil\x1b[2J"
	_, err = e.svc.JoinPath(e.ctx, bad, stick.JoinRequest{Path: e.repo})
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.Takeover(e.ctx, a, room, -1, "x")
	wantCode(t, err, stick.CodeInvalidArgument)
	_, err = e.svc.Takeover(e.ctx, a, room, 0, "\xff")
	wantCode(t, err, stick.CodeInvalidArgument)
	if _, err := stick.New(e.store, stick.WithDefaults(stick.Policy{HeartbeatInterval: time.Hour})); stick.ErrorCode(err) != stick.CodeInvalidArgument {
		t.Fatalf("invalid defaults: %v", err)
	}
	if st := e.state(room); st.LastEventSeq != 1 {
		t.Fatalf("rejections must write nothing: %+v", st)
	}
}
