package storetest

import (
	"time"

	"github.com/stickhq/stick/stick"
)

var wakeCases = []testCase{
	{"ChangedByACommitOfAnyHandle", testChanged},
	{"WaiterOnChangedSeesEveryCommit", testChangedWaiter},
	{"RungByACommittedRing", testRung},
	{"RingsOnlyWhomItConcerns", testRungOnly},
}

// bump commits one more turn of room_1 through s, ringing the bells
// given (agent "" for the room's), and returns the new turn.
func bump(e *env, s stick.Store, bells ...string) int64 {
	e.t.Helper()
	return writeOn(e, s, func(tx stick.Tx) (int64, error) {
		r, _, err := tx.Room("room_1")
		if err != nil {
			return 0, err
		}
		r.TurnID++
		for _, agent := range bells {
			tx.Ring("room_1", agent)
		}
		return r.TurnID, tx.SaveRoom(r)
	})
}

// turnOn reads room_1's turn in a View of s.
func turnOn(e *env, s stick.Store) int64 {
	e.t.Helper()
	r, _, err := roomOf(e, s, "room_1")
	if err != nil {
		e.t.Fatal(err)
	}
	return r.TurnID
}

// A Changed channel taken before a commit, by this handle or another, is
// closed within WakeWithin of it.
func testChanged(e *env) {
	other := e.handle()
	createRooms(e, newRoom("room_1", "/w/one"))
	for _, tc := range []struct {
		name           string
		waiter, writer stick.Store
	}{
		{"another handle's commit", e.s, other},
		{"its own handle's commit", e.s, e.s},
		{"the first handle's commit", other, e.s},
	} {
		for range 3 {
			ch := tc.waiter.Changed()
			if ch == nil {
				e.t.Fatal("Changed returned nil; it must return a channel")
			}
			bump(e, tc.writer)
			if !closedWithin(e.ctx, ch, e.h.WakeWithin) {
				e.t.Fatalf("Changed was not closed within %v of %s", e.h.WakeWithin, tc.name)
			}
		}
	}
}

// A waiter that reads, then waits on Changed, and reads again when it is
// closed (whether by a commit or spuriously), sees each commit of
// another handle within WakeWithin.
func testChangedWaiter(e *env) {
	other := e.handle()
	createRooms(e, newRoom("room_1", "/w/one"))
	for range 5 {
		want := bump(e, other)
		deadline := time.Now().Add(e.h.WakeWithin)
		for {
			ch := e.s.Changed()
			if turnOn(e, e.s) == want {
				break
			}
			left := time.Until(deadline)
			if left <= 0 || !closedWithin(e.ctx, ch, left) {
				e.t.Fatalf("a waiter on Changed did not see turn %d within %v of its commit", want, e.h.WakeWithin)
			}
		}
	}
}

// A commit that rang a bell closes the Rung channels of that bell (a
// member's, or the room's own for agent ""), taken before it on this
// handle or another, within WakeWithin, and a waiter woken reads the
// commit. A store whose Rung returns nil cannot tell (its waiters wait on
// Changed, which the Changed tests cover).
func testRung(e *env) {
	other := e.handle()
	createRooms(e, newRoom("room_1", "/w/one"))
	for _, tc := range []struct {
		name           string
		waiter, writer stick.Store
		agent          string
	}{
		{"a member's bell rung by another handle", e.s, other, "a"},
		{"the room's bell rung by another handle", e.s, other, ""},
		{"a member's bell rung by its own handle", e.s, e.s, "b"},
		{"a member's bell rung by the first handle", other, e.s, "a"},
	} {
		for range 3 {
			ch := tc.waiter.Rung("room_1", tc.agent)
			if ch == nil {
				e.t.Logf("%s: Rung returned nil: the store cannot tell, and its waiters wait on Changed", tc.name)
				break
			}
			want := bump(e, tc.writer, tc.agent)
			if !closedWithin(e.ctx, ch, e.h.WakeWithin) {
				e.t.Fatalf("%s: the Rung channel was not closed within %v of the commit", tc.name, e.h.WakeWithin)
			}
			if got := turnOn(e, tc.waiter); got != want {
				e.t.Fatalf("%s: a waiter woken by the bell reads turn %d, not the commit's %d: a bell must ring after its commit is visible", tc.name, got, want)
			}
		}
	}
}

// A bell rings for no transaction that rolled back, for no View, and
// never for another member's, another room's or the room's own bell;
// a channel taken after a ring waits for the next one. Rings are assumed
// to reach a waiter in commit order: the ring of a's bell, committed
// last, arrives after any wrongly rung before it.
func testRungOnly(e *env) {
	if e.h.SpuriousBells {
		e.t.Skip("the store's bells may wake waiters spuriously (Harness.SpuriousBells); only rung bells are checked")
	}
	other := e.handle()
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	a, b, room, elsewhere := e.s.Rung("room_1", "a"), e.s.Rung("room_1", "b"), e.s.Rung("room_1", ""), e.s.Rung("room_2", "a")
	if a == nil || b == nil || room == nil || elsewhere == nil {
		e.t.Skip("Rung returned nil: the store cannot tell, and its waiters wait on Changed")
	}
	if err := other.Update(e.ctx, func(tx stick.Tx) error {
		tx.Ring("room_1", "b")
		tx.Ring("room_1", "")
		return errRollback
	}); err == nil {
		e.t.Fatal("an update whose function failed returned nil")
	}
	e.view(other, func(tx stick.Tx) error {
		tx.Ring("room_1", "b")
		tx.Ring("room_2", "a")
		return nil
	})
	e.update(other, func(tx stick.Tx) error {
		tx.Ring("room_2", "b")
		return nil
	})
	bump(e, other, "a")
	if !closedWithin(e.ctx, a, e.h.WakeWithin) {
		e.t.Fatalf("a's bell was not rung within %v", e.h.WakeWithin)
	}
	for name, ch := range map[string]<-chan struct{}{
		"b's bell (rung by a rolled-back update and inside a view)": b,
		"the room's bell (rung by a rolled-back update)":            room,
		"a's bell in another room (rung inside a view)":             elsewhere,
	} {
		if isClosed(ch) {
			e.t.Errorf("%s woke its waiter", name)
		}
	}
	if again := e.s.Rung("room_1", "a"); isClosed(again) {
		e.t.Error("a Rung channel taken after a's bell rang is closed already; it must wait for the next ring")
	}
}
