package stick_test

import (
	"context"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

type rosterOutcome struct {
	r   stick.Roster
	err error
}

// waitMembers runs WaitForMembers of svc in the background.
func (e *env) waitMembers(ctx context.Context, svc *stick.Service, room string, want int, maxWait time.Duration) <-chan rosterOutcome {
	ch := make(chan rosterOutcome, 1)
	go func() {
		r, err := svc.WaitForMembers(ctx, room, want, maxWait)
		ch <- rosterOutcome{r, err}
	}()
	return ch
}

// A wait for members returns at once when the room has them, or when
// none is asked for; otherwise a join wakes it, and the roster names the
// members in their order, with the room's concluder.
func TestWaitForMembersWokenByAJoin(t *testing.T) {
	s := newSession(t)
	a, err := s.alex.JoinPath(s.ctx, s.alexC, stick.JoinRequest{Name: "review", Conclude: true})
	if err != nil {
		t.Fatal(err)
	}
	viewer := s.svc.As(principal("viewer0000000000", "watchers", stick.AccessViewer))
	for _, want := range []int{0, 1} {
		r, err := viewer.WaitForMembers(s.ctx, a.RoomID, want, stick.MaxWaitLimit)
		if err != nil || !r.Reached || r.Want != want || len(r.Members) != 1 || r.Concluder != s.alexC.AgentID || r.RoomName != "review" {
			t.Fatalf("min %d: %+v %v", want, r, err)
		}
	}
	ch := s.waitMembers(s.ctx, viewer, a.RoomID, 2, stick.MaxWaitLimit)
	s.settle(1)
	// A commit that moves no log of this room wakes the wait, which
	// waits on.
	if _, err := s.svc.JoinPath(s.ctx, agent("elsewhere"), stick.JoinRequest{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.bob.JoinPath(s.ctx, s.bobC, stick.JoinRequest{Name: "review"}); err != nil {
		t.Fatal(err)
	}
	o := outcome(t, ch)
	if o.err != nil || !o.r.Reached || o.r.Closed || len(o.r.Members) != 2 || o.r.Members[1].AgentID != s.bobC.AgentID || o.r.State != stick.StateIdle {
		t.Fatalf("after bob's join: %+v %v", o.r, o.err)
	}
}

// A wait that is not satisfied answers at its deadline with reached
// false; one in a closed room answers at once; Shutdown ends a wait with
// the roster as it is, and a cancelled context with its error.
func TestWaitForMembersEnds(t *testing.T) {
	s := newSession(t)
	s.joinAll(true)
	ch := s.waitMembers(s.ctx, s.svc, s.room, 3, time.Minute)
	s.settle(1)
	s.clock.Advance(time.Minute)
	if o := outcome(t, ch); o.err != nil || o.r.Reached || len(o.r.Members) != 2 || o.r.Want != 3 {
		t.Fatalf("at the deadline: %+v %v", o.r, o.err)
	}
	if r, err := s.svc.WaitForMembers(s.ctx, s.room, 3, 0); err != nil || r.Reached {
		t.Fatalf("without a wait: %+v %v", r, err)
	}

	ctx, cancel := context.WithCancel(s.ctx)
	ch = s.waitMembers(ctx, s.svc, s.room, 3, time.Minute)
	s.settle(1)
	cancel()
	if o := outcome(t, ch); o.err != context.Canceled {
		t.Fatalf("a cancelled wait: %+v %v", o.r, o.err)
	}

	if _, err := s.svc.Close(s.ctx, s.alexC, s.room, "done", ""); err != nil {
		t.Fatal(err)
	}
	if r, err := s.svc.WaitForMembers(s.ctx, s.room, 3, time.Minute); err != nil || r.Reached || !r.Closed || r.State != stick.StateClosed {
		t.Fatalf("in a closed room: %+v %v", r, err)
	}

	open, err := s.svc.JoinPath(s.ctx, s.alexC, stick.JoinRequest{Name: "next"})
	if err != nil {
		t.Fatal(err)
	}
	ch = s.waitMembers(s.ctx, s.svc, open.RoomID, 2, time.Minute)
	s.settle(1)
	s.svc.Shutdown()
	if o := outcome(t, ch); o.err != nil || o.r.Reached || len(o.r.Members) != 1 {
		t.Fatalf("at shutdown: %+v %v", o.r, o.err)
	}
}

// A wait whose room closes while it waits answers closed.
func TestWaitForMembersSeesTheClose(t *testing.T) {
	s := newSession(t)
	s.joinAll(false)
	ch := s.waitMembers(s.ctx, s.svc, s.room, 5, stick.MaxWaitLimit)
	s.settle(1)
	if _, err := s.svc.Close(s.ctx, s.alexC, s.room, "nobody else came", ""); err != nil {
		t.Fatal(err)
	}
	if o := outcome(t, ch); o.err != nil || !o.r.Closed || o.r.Reached {
		t.Fatalf("a close while waiting: %+v %v", o.r, o.err)
	}
}

// Bad input is invalid_argument naming the field; a room that does not
// exist is room_not_found.
func TestWaitForMembersInput(t *testing.T) {
	s := newSession(t)
	s.joinAll(false)
	for _, tc := range []struct {
		want  int
		wait  time.Duration
		field string
	}{
		{-1, 0, "min"}, {stick.MaxRosterWant + 1, 0, "min"},
		{2, -time.Second, "wait_ms"}, {2, stick.MaxWaitLimit + time.Millisecond, "wait_ms"},
	} {
		_, err := s.svc.WaitForMembers(s.ctx, s.room, tc.want, tc.wait)
		if e := wantCode(t, err, stick.CodeInvalidArgument); e.Details["field"] != tc.field || e.Hint == "" {
			t.Fatalf("min %d, wait %v: %+v", tc.want, tc.wait, e)
		}
	}
	_, err := s.svc.WaitForMembers(s.ctx, "room_0000000000000000", 1, time.Second)
	wantCode(t, err, stick.CodeRoomNotFound)
}
