package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func dur(d time.Duration) *time.Duration { return &d }

// A member that does not hold the stick sets a tiny lease so that the
// holder's next on-time heartbeat is granted almost nothing, then takes the
// stick over while the holder keeps working. The change is refused, and the
// holder keeps its lease.
func TestPolicyRivalCannotShortenHoldersLease(t *testing.T) {
	e := newEnv(t)
	holder, rival, third := agent("holder"), agent("rival"), agent("third")
	room := e.join(holder).RoomID
	e.join(rival)
	e.join(third)
	if _, err := e.svc.SetPolicy(e.ctx, third, room, stick.PolicyUpdate{ClaimTTL: dur(30 * time.Minute)}); err != nil {
		t.Fatalf("any member may change the policy of an idle room: %v", err)
	}
	l := e.claim(holder, room).Lease()

	_, err := e.svc.SetPolicy(e.ctx, rival, room, stick.PolicyUpdate{OwnerLeaseTTL: dur(300 * time.Millisecond), HeartbeatInterval: dur(100 * time.Millisecond)})
	if se := wantCode(t, err, stick.CodeStickHeld); se.Hint == "" || se.Details["current_owner"] != "holder" {
		t.Errorf("refusal must name the holder and say what to do: %+v", se)
	}
	e.clock.Advance(time.Minute)
	if _, err := e.svc.Heartbeat(e.ctx, holder, l); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(500 * time.Millisecond)
	if w := e.try(rival, room); w.Status != stick.NotYet {
		t.Fatalf("rival half a second after the holder's on-time heartbeat: want not_yet, got %+v", w)
	}

	// While the stick is reserved only its recipient may change the policy.
	e.release(holder, l, "done")
	if st := e.state(room); st.State != stick.StateReserved || st.ReservedFor != "rival" {
		t.Fatalf("want reserved for rival: %+v", st)
	}
	for _, c := range []stick.Caller{holder, third} {
		_, err := e.svc.SetPolicy(e.ctx, c, room, stick.PolicyUpdate{ClaimTTL: dur(time.Second)})
		wantCode(t, err, stick.CodeStickHeld)
	}
	if _, err := e.svc.SetPolicy(e.ctx, rival, room, stick.PolicyUpdate{ClaimTTL: dur(time.Minute)}); err != nil {
		t.Fatalf("the recipient may change the policy: %v", err)
	}
	// The holder may change it while it holds.
	e.claim(rival, room)
	if _, err := e.svc.SetPolicy(e.ctx, rival, room, stick.PolicyUpdate{ClaimTTL: dur(2 * time.Minute)}); err != nil {
		t.Fatalf("the holder may change the policy: %v", err)
	}
}

// A policy change never moves a granted lease's end or a reservation's claim
// deadline earlier, even by the member allowed to make it; a renewal after
// it never ends before the lease it renews.
func TestPolicyChangeNeverShortensRunningDeadlines(t *testing.T) {
	e := newEnv(t)
	holder, next, third := agent("holder"), agent("next"), agent("third")
	room := e.join(holder).RoomID
	e.join(next)
	e.join(third)
	w := e.claim(holder, room)
	l, granted := w.Lease(), *w.LeaseExpiresAt

	if _, err := e.svc.SetPolicy(e.ctx, holder, room, stick.PolicyUpdate{OwnerLeaseTTL: dur(time.Second), HeartbeatInterval: dur(200 * time.Millisecond), PresenceTTL: dur(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if st := e.state(room); !st.LeaseExpires.Equal(granted) {
		t.Fatalf("policy change moved the lease end from %v to %v", granted, st.LeaseExpires)
	}
	e.clock.Advance(10 * time.Minute)
	hb, err := e.svc.Heartbeat(e.ctx, holder, l)
	if err != nil {
		t.Fatal(err)
	}
	if !hb.LeaseExpiresAt.Equal(granted) {
		t.Fatalf("heartbeat after the change ends the lease at %v, before the granted %v", hb.LeaseExpiresAt, granted)
	}
	e.note(holder, room, "still working") // a call renews like a heartbeat
	if st := e.state(room); !st.LeaseExpires.Equal(granted) {
		t.Fatalf("a call after the change ends the lease at %v, not the granted %v", st.LeaseExpires, granted)
	}
	e.clock.Advance(10 * time.Minute)
	if r := e.try(third, room); r.Status != stick.NotYet {
		t.Fatalf("lease granted until %v must stand: %+v", granted, r)
	}
	// Past the granted end, a renewal follows the new policy.
	e.clock.Advance(granted.Add(-100 * time.Millisecond).Sub(e.clock.Now()))
	if hb, err = e.svc.Heartbeat(e.ctx, holder, l); err != nil || !hb.LeaseExpiresAt.Equal(e.clock.Now().Add(time.Second)) {
		t.Fatalf("renewal near the granted end: want now+1s, got %v %v", hb.LeaseExpiresAt, err)
	}

	// A reservation's claim deadline stands when its recipient shortens the claim TTL.
	if _, err := e.svc.SetPolicy(e.ctx, holder, room, stick.PolicyUpdate{ClaimTTL: dur(20 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	rel := e.release(holder, l, "done")
	deadline := *rel.ClaimExpiresAt
	if _, err := e.svc.SetPolicy(e.ctx, next, room, stick.PolicyUpdate{ClaimTTL: dur(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if st := e.state(room); !st.ClaimExpires.Equal(deadline) {
		t.Fatalf("policy change moved the claim deadline from %v to %v", deadline, st.ClaimExpires)
	}
	e.clock.Advance(10 * time.Minute)
	if r := e.try(third, room); r.Status != stick.NotYet {
		t.Fatalf("reservation until %v must stand: %+v", deadline, r)
	}
	e.clock.Advance(deadline.Add(time.Millisecond).Sub(e.clock.Now()))
	if r := e.try(third, room); r.Status != stick.TakeoverAvailable {
		t.Fatalf("past the claim deadline: want takeover_available, got %+v", r)
	}
}
