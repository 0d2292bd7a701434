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
		{"past a member on standby", stick.RoomStatus{State: stick.StateOwned, Owner: "ana", Members: []stick.MemberStatus{
			{AgentID: "ana", Status: stick.MemberActive}, {AgentID: "chat", Status: stick.MemberActive, Standby: true},
			{AgentID: "codex", Status: stick.MemberActive}}}, "codex", 1},
	} {
		if got := tc.st.Ahead(tc.me); got != tc.want {
			t.Errorf("%s: %d ahead, want %d", tc.name, got, tc.want)
		}
	}
}

// Next is the reserved recipient, else the first member after the holder
// that takes turns, is not on standby and is not excepted.
func TestNext(t *testing.T) {
	members := []stick.MemberStatus{
		{AgentID: "ana", Status: stick.MemberActive}, {AgentID: "chat", Status: stick.MemberActive, Standby: true},
		{AgentID: "gemini", Status: stick.MemberInactive}, {AgentID: "claude", Status: stick.MemberAway},
		{AgentID: "console", Status: stick.MemberActive},
	}
	for _, tc := range []struct {
		name   string
		st     stick.RoomStatus
		except []string
		want   string
	}{
		{"past standby and inactive", stick.RoomStatus{Owner: "ana", Members: members}, nil, "claude"},
		{"wrapping around", stick.RoomStatus{Owner: "claude", Members: members}, []string{"console"}, "ana"},
		{"the next one when not excepted", stick.RoomStatus{Owner: "claude", Members: members}, nil, "console"},
		{"the reserved recipient", stick.RoomStatus{ReservedFor: "gemini", Members: members}, nil, "gemini"},
		{"nobody holds it", stick.RoomStatus{Members: members}, nil, ""},
		{"nobody else takes turns", stick.RoomStatus{Owner: "ana", Members: members}, []string{"claude", "console"}, ""},
		{"a holder not among the members", stick.RoomStatus{Owner: "left", Members: members}, nil, ""},
	} {
		if got := tc.st.Next(tc.except...); got != tc.want {
			t.Errorf("%s: next %q, want %q", tc.name, got, tc.want)
		}
	}
}
