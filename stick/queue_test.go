package stick_test

import (
	"testing"

	"github.com/stickhq/stick/stick"
)

func TestAheadCounts(t *testing.T) {
	members := []stick.MemberStatus{
		{AgentID: "ana", Status: stick.MemberActive}, {AgentID: "codex", Status: stick.MemberActive},
		{AgentID: "gemini", Status: stick.MemberInactive}, {AgentID: "claude", Status: stick.MemberAway},
		{AgentID: "bo", Status: stick.MemberGone},
	}
	held := stick.RoomStatus{State: stick.StateOwned, Owner: "codex", Members: members}
	reserved := stick.RoomStatus{State: stick.StateReserved, ReservedFor: "codex", Members: members}
	for _, tc := range []struct {
		name string
		st   stick.RoomStatus
		me   string
		want int
	}{
		{"the holder itself", held, "codex", 0},
		{"the next one", held, "gemini", 1},
		{"past an inactive member", held, "claude", 1},
		{"past an away and a gone member", held, "bo", 2},
		{"wrapping around", held, "ana", 2},
		{"after the reserved recipient", reserved, "ana", 2},
		{"the recipient itself", reserved, "codex", 0},
		{"nobody holds it", stick.RoomStatus{State: stick.StateIdle, Members: members}, "ana", 0},
		{"not a member", held, "stranger", 1},
		{"a holder not among the members", stick.RoomStatus{State: stick.StateOwned, Owner: "left", Members: members}, "ana", 1},
	} {
		if got := tc.st.Ahead(tc.me); got != tc.want {
			t.Errorf("%s: %d ahead, want %d", tc.name, got, tc.want)
		}
	}
}

// Ahead counts as the stick goes round: after a release, the one reserved
// is the first, and the count of those behind it drops by one.
func TestAheadFollowsTheSequence(t *testing.T) {
	e := newEnv(t)
	a, b, c, d := agent("a"), agent("b"), agent("c"), agent("d")
	room := e.join(a).RoomID
	for _, m := range []stick.Caller{b, c, d} {
		e.join(m)
	}
	w := e.claim(a, room)
	st := e.state(room)
	for id, want := range map[string]int{"a": 0, "b": 1, "c": 2, "d": 3} {
		if got := st.Ahead(id); got != want {
			t.Errorf("while a holds: %s is %d ahead, want %d", id, got, want)
		}
	}
	if rel := e.release(a, w.Lease(), "done"); rel.ReservedFor != "b" {
		t.Fatalf("release: %+v", rel)
	}
	st = e.state(room)
	for id, want := range map[string]int{"b": 0, "c": 1, "d": 2, "a": 3} {
		if got := st.Ahead(id); got != want {
			t.Errorf("while b is reserved: %s is %d ahead, want %d", id, got, want)
		}
	}
}
