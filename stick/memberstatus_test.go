package stick_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// statuses returns each member's status by agent id.
func (e *env) statuses(room string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, m := range e.state(room).Members {
		out[m.AgentID] = m.Status
	}
	return out
}

// A member whose process exited shows gone, not active, in the room's state
// and list; a person with no live process shows away. Pass agrees with what
// is shown: it refuses the gone member, with a hint naming the statuses
// that can receive, and accepts the away person.
func TestExitedMemberShowsGone(t *testing.T) {
	e := newEnv(t)
	holder := agent("codex:1")
	program, killProgram := liveAgent(t, "claude-code:2")
	oneShot := stick.Caller{AgentID: "human:cy", Kind: stick.KindOneShot}
	guardian, killGuardian := liveAgent(t, "human:di")
	guardian.Kind = stick.KindGuardian
	room := e.join(holder).RoomID
	for _, c := range []stick.Caller{program, oneShot, guardian} {
		e.join(c)
	}
	l := e.claim(holder, room).Lease()
	want := map[string]string{"codex:1": "active", "claude-code:2": "active", "human:cy": "away", "human:di": "active"}
	if got := e.statuses(room); !equalMaps(got, want) {
		t.Fatalf("all alive: %v, want %v", got, want)
	}
	killProgram()
	killGuardian()
	// Verdicts are cached for one liveness poll (1 s), then probed again.
	e.clock.Advance(1100 * time.Millisecond)
	want = map[string]string{"codex:1": "active", "claude-code:2": "gone", "human:cy": "away", "human:di": "away"}
	if got := e.statuses(room); !equalMaps(got, want) {
		t.Fatalf("after the exits: %v, want %v", got, want)
	}
	list, err := e.svc.ListRooms(e.ctx, e.repo)
	if err != nil || len(list) != 1 || list[0].Members != 4 || list[0].ActiveMembers != 3 || list[0].AwayMembers != 2 {
		t.Fatalf("list counts: %+v %v", list, err)
	}

	_, err = e.svc.Pass(e.ctx, holder, l, program.AgentID, handoff("to the gone one"))
	se := wantCode(t, err, stick.CodeUnknownMember)
	if se.Details["why"] != "gone" || !strings.Contains(se.Hint, "active or away") || !strings.Contains(se.Message, "gone") {
		t.Fatalf("pass to a gone member: %s (hint %q, details %v)", se.Message, se.Hint, se.Details)
	}
	res, err := e.svc.Pass(e.ctx, holder, l, guardian.AgentID, handoff("over to you, Di"))
	if err != nil || res.ReservedFor != guardian.AgentID {
		t.Fatalf("pass to an away person: %+v %v", res, err)
	}
	// The person's old guardian does not make the room look abandoned.
	st := e.state(room)
	if st.State != stick.StateReserved || st.Takeover != "" {
		t.Fatalf("reserved for an away person: %+v", st)
	}
	if got := e.statuses(room)["human:di"]; got != "away" {
		t.Fatalf("the recipient waits for nothing yet: %s", got)
	}
	// Back at the terminal, the person claims the stick passed to them.
	back, _ := liveAgent(t, "human:di")
	back.Kind = stick.KindGuardian
	if w := e.claim(back, room); w.Reason != string(stick.GrantDirectPass) || w.Handoff.Status != "over to you, Di" {
		t.Fatalf("claim after coming back: %+v", w)
	}
}

// Release follows the sequence past a gone member to an away person; a
// room whose present members have all exited is dormant, not idle with
// members "active".
func TestGoneMembersNeitherReceiveNorKeepRoomAwake(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	b, killB := liveAgent(t, "b")
	c := stick.Caller{AgentID: "human:c", Kind: stick.KindOneShot}
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	l := e.claim(a, room).Lease()
	killB()
	if res := e.release(a, l, "b has exited"); res.ReservedFor != c.AgentID {
		t.Fatalf("release must skip the gone member and reach the away person: %+v", res)
	}

	e2 := newEnv(t)
	x, killX := liveAgent(t, "x")
	y, killY := liveAgent(t, "y")
	room = e2.join(x).RoomID
	e2.join(y)
	if st := e2.state(room); st.State != stick.StateIdle {
		t.Fatalf("live members: %s", st.State)
	}
	killX()
	killY()
	e2.clock.Advance(1100 * time.Millisecond)
	if st := e2.state(room); st.State != stick.StateDormant {
		t.Fatalf("only gone members are left: want dormant, got %s (members %+v)", st.State, st.Members)
	}
	list, err := e2.svc.ListRooms(e2.ctx, e2.repo)
	if err != nil || len(list) != 1 || list[0].State != stick.StateDormant || list[0].ActiveMembers != 0 {
		t.Fatalf("list: %+v %v", list, err)
	}
}

// Reads judge members by cached verdicts: the first read after a liveness
// poll probes each present member once, later reads only the holder (whose
// verdict decides takeover and is always fresh), and listing probes nobody
// while the verdicts last.
func TestReadsProbeMembersOncePerPoll(t *testing.T) {
	e := newEnv(t)
	owner, _ := liveAgent(t, "owner")
	room := e.join(owner).RoomID
	for i := 0; i < 20; i++ {
		m, _ := liveAgent(t, "m"+itoa(int64(i)))
		e.join(m)
	}
	e.claim(owner, room)
	e.clock.Advance(2 * time.Second)
	probes := func(what string, want int, read func()) {
		t.Helper()
		e.probes.n = 0
		read()
		if e.probes.n != want {
			t.Fatalf("%s probed %d processes, want %d", what, e.probes.n, want)
		}
	}
	state := func() { e.state(room) }
	list := func() {
		if _, err := e.svc.ListRooms(e.ctx, e.repo); err != nil {
			t.Fatal(err)
		}
	}
	probes("the first get_room_state after a poll", 21, state)
	probes("get_room_state again", 1, state)
	probes("list_rooms", 0, list)
	e.clock.Advance(2 * time.Second)
	probes("list_rooms after a poll", 21, list)
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
