package stick_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// A name that another process joined as since is proven by the token the
// frontend holds for it in that room, and by nothing held elsewhere.
func TestHeldTokenProvesAName(t *testing.T) {
	e := newEnv(t)
	x := agent("claude-code:x")
	j, err := e.svc.JoinPath(e.ctx, x, stick.JoinRequest{Path: e.repo, AgentIDOverride: "keeper"})
	if err != nil {
		t.Fatal(err)
	}
	other := mkRepo(t)
	o, err := e.svc.JoinPath(e.ctx, x, stick.JoinRequest{Path: other, AgentIDOverride: "keeper"})
	if err != nil {
		t.Fatal(err)
	}
	join := func(held ...stick.Membership) (stick.JoinResult, error) {
		return e.svc.JoinPath(e.ctx, x, stick.JoinRequest{Path: e.repo, AgentIDOverride: "keeper", Held: held})
	}
	_, err = join()
	wantCode(t, err, stick.CodeAgentIDInUse)
	// A token held for the name in another room, or for another name here.
	_, err = join(stick.Membership{RoomID: o.RoomID, AgentID: "keeper", ReclaimToken: o.ReclaimToken},
		stick.Membership{RoomID: j.RoomID, AgentID: "someone", ReclaimToken: j.ReclaimToken})
	wantCode(t, err, stick.CodeAgentIDInUse)
	// A token held for the name here that is not its (any more).
	_, err = join(stick.Membership{RoomID: j.RoomID, AgentID: "keeper", ReclaimToken: "rt_stale"})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "reclaim_token" {
		t.Fatalf("a stale held token: %+v", se)
	}
	res, err := join(stick.Membership{RoomID: o.RoomID, AgentID: "keeper", ReclaimToken: o.ReclaimToken},
		stick.Membership{RoomID: j.RoomID, AgentID: "keeper", ReclaimToken: j.ReclaimToken})
	if err != nil || res.AgentID != "keeper" || !res.Reclaimed || res.NewMember || res.ReclaimToken != j.ReclaimToken || res.Left != "" {
		t.Fatalf("the held token proves the name: %+v %v", res, err)
	}
}

// A join that reclaims another member makes the caller's own member, which
// the frontend held in the room, leave in the same transaction, unless it
// holds the stick; the stick reserved for it moves on.
func TestReclaimLeavesTheHeldMember(t *testing.T) {
	e := newEnv(t)
	peer := agent("codex:peer")
	room := e.join(peer).RoomID
	keeper, err := e.svc.JoinPath(e.ctx, agent("claude-code:old"), stick.JoinRequest{Path: e.repo, AgentIDOverride: "keeper"})
	if err != nil {
		t.Fatal(err)
	}
	fresh := agent("claude-code:new")
	own := e.join(fresh)
	held := []stick.Membership{{RoomID: room, AgentID: fresh.AgentID, ReclaimToken: own.ReclaimToken}}

	// Without the membership held, the caller's member stays.
	back, err := e.svc.JoinPath(e.ctx, fresh, stick.JoinRequest{Path: e.repo, ReclaimToken: keeper.ReclaimToken})
	if err != nil || back.AgentID != "keeper" || back.Left != "" || len(back.Room.Members) != 3 {
		t.Fatalf("a reclaim without held memberships: %+v %v", back, err)
	}
	// With it, the member leaves: the room shows it gone, the log says so.
	back, err = e.svc.JoinPath(e.ctx, fresh, stick.JoinRequest{Path: e.repo, ReclaimToken: keeper.ReclaimToken, Held: held})
	if err != nil || back.AgentID != "keeper" || back.Left != fresh.AgentID {
		t.Fatalf("a reclaim with the held membership: %+v %v", back, err)
	}
	if ids := memberIDs(back.Room.Members); ids != "codex:peer keeper" {
		t.Fatalf("members after the reclaim: %s", ids)
	}
	if ids := memberIDs(e.state(room).Members); ids != "codex:peer keeper" {
		t.Fatalf("stored members after the reclaim: %s", ids)
	}
	page, _ := e.svc.RoomEvents(e.ctx, room, 0, 0)
	if last := page.Events[len(page.Events)-1]; last.Type != stick.EventLeave || last.From != fresh.AgentID {
		t.Fatalf("the leave is logged: %+v", last)
	}

	// The stick reserved for the member that leaves goes to the next one.
	e.join(fresh)
	w := e.claim(peer, room)
	if rel, err := e.svc.Pass(e.ctx, peer, w.Lease(), fresh.AgentID, handoff("over to you")); err != nil || rel.ReservedFor != fresh.AgentID {
		t.Fatalf("pass: %+v %v", rel, err)
	}
	back, err = e.svc.JoinPath(e.ctx, fresh, stick.JoinRequest{Path: e.repo, ReclaimToken: keeper.ReclaimToken, Held: held})
	if err != nil || back.Left != fresh.AgentID || back.Room.ReservedFor != "keeper" || back.Room.State != stick.StateReserved {
		t.Fatalf("the reservation moves on: %+v %v", back.Room, err)
	}

	// A member holding the stick stays.
	e.join(fresh)
	l := e.claim(agent("keeper"), room).Lease()
	e.release(agent("keeper"), l, "done")
	for e.state(room).ReservedFor != fresh.AgentID {
		st := e.state(room)
		holder := agent(st.ReservedFor)
		e.release(holder, e.claim(holder, room).Lease(), "next")
	}
	e.claim(fresh, room)
	back, err = e.svc.JoinPath(e.ctx, fresh, stick.JoinRequest{Path: e.repo, ReclaimToken: keeper.ReclaimToken, Held: held})
	if err != nil || back.Left != "" || back.Room.Owner != fresh.AgentID || !strings.Contains(memberIDs(back.Room.Members), fresh.AgentID) {
		t.Fatalf("the holder stays: %+v %v", back, err)
	}
}

func TestHeldIsBounded(t *testing.T) {
	e := newEnv(t)
	held := make([]stick.Membership, stick.MaxHeld+1)
	_, err := e.svc.JoinPath(e.ctx, agent("a"), stick.JoinRequest{Path: e.repo, Held: held})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "held" {
		t.Fatalf("too many held memberships: %+v", se)
	}
	_, err = e.svc.JoinPath(e.ctx, agent("a"), stick.JoinRequest{Path: e.repo, Held: []stick.Membership{{RoomID: strings.Repeat("r", stick.MaxIDLen+1)}}})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "held" {
		t.Fatalf("a held room id too long: %+v", se)
	}
}

func memberIDs(ms []stick.MemberStatus) string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.AgentID
	}
	return strings.Join(ids, " ")
}
