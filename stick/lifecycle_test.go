package stick_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// The plan's first slice: join, open claim, release with handoff, reserved claim.
func TestHappyPathJoinClaimReleaseClaim(t *testing.T) {
	e := newEnv(t)
	codex, claude := agent("codex"), agent("claude")
	j := e.join(codex)
	if !j.Created || !j.NewMember || j.CanonicalPath != e.repo || j.AgentID != "codex" {
		t.Fatalf("join: %+v", j)
	}
	if j.Policy != stick.DefaultPolicy || j.HandoffTemplate.Status == "" {
		t.Fatalf("join must return the effective policy and the handoff template: %+v", j)
	}
	e.join(claude)
	room := j.RoomID

	first := e.claim(codex, room)
	if first.TurnID != 1 || first.Reason != string(stick.GrantOpenClaim) || first.Handoff != nil || first.LeaseID == "" {
		t.Fatalf("first claim: %+v", first)
	}
	if first.NextHeartbeatAt == nil || !first.NextHeartbeatAt.Equal(epoch.Add(5*time.Minute)) {
		t.Fatalf("next heartbeat: %v", first.NextHeartbeatAt)
	}
	h := stick.Handoff{
		Status: "wrote initial plan covering sections 1-3", NextAction: "review plan for gaps",
		Artifacts:     []stick.Artifact{{Path: "plan.md", Lines: []int{45, 78}, Role: stick.RoleReview, Note: "section 2"}},
		OpenQuestions: []string{"is section 3 needed?"}, DoNot: []string{"do not touch go.mod"},
	}
	rel, err := e.svc.Release(e.ctx, codex, first.Lease(), h)
	if err != nil {
		t.Fatal(err)
	}
	if rel.State != stick.StateReserved || rel.ReservedFor != "claude" || rel.ClaimExpiresAt == nil {
		t.Fatalf("release: %+v", rel)
	}
	if got := e.try(codex, room); got.Status != stick.NotYet || got.ReservedFor != "claude" {
		t.Fatalf("codex must not claim a stick reserved for claude: %+v", got)
	}
	second := e.claim(claude, room)
	if second.TurnID != 2 || second.Reason != string(stick.GrantSequence) || second.FromAgentID != "codex" {
		t.Fatalf("second claim: %+v", second)
	}
	if second.Handoff == nil || second.Handoff.Status != h.Status || second.Handoff.Artifacts[0].Lines[1] != 78 ||
		second.Handoff.DoNot[0] != h.DoNot[0] || second.HandoffSeq != rel.EventSeq {
		t.Fatalf("claim must carry the handoff verbatim: %+v", second.Handoff)
	}
	if second.LeaseID == first.LeaseID {
		t.Fatal("lease ids must never be reused")
	}
	st := e.state(room)
	if st.State != stick.StateOwned || st.Owner != "claude" || st.TurnID != 2 || st.PendingHandoff != nil {
		t.Fatalf("state after claim: %+v", st)
	}
}

// The plan's three-agent round robin: release follows join order and wraps.
func TestReleaseFollowsSequence(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("codex"), agent("claude"), agent("gemini")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	order := []stick.Caller{a, b, c, a, b, c, a}
	l := e.claim(a, room).Lease()
	for i := 1; i < len(order); i++ {
		rel := e.release(order[i-1], l, "turn "+itoa(int64(i)))
		if rel.ReservedFor != order[i].AgentID {
			t.Fatalf("step %d: reserved for %s, want %s", i, rel.ReservedFor, order[i].AgentID)
		}
		got := e.claim(order[i], room)
		if got.TurnID != int64(i+1) || got.Handoff.Status != "turn "+itoa(int64(i)) {
			t.Fatalf("step %d: %+v", i, got)
		}
		l = got.Lease()
	}
}

// Release skips members whose presence lapsed, and goes idle when nobody else is active.
func TestReleaseSkipsInactiveAndGoesIdleWhenAlone(t *testing.T) {
	e := newEnv(t)
	a, b, c := agent("a"), agent("b"), agent("c")
	room := e.join(a).RoomID
	e.join(b)
	e.clock.Advance(3 * time.Hour)
	e.join(c)
	e.clock.Advance(90 * time.Minute) // b last seen 4h30 ago: inactive; c 1h30: active
	l := e.claim(a, room).Lease()
	if rel := e.release(a, l, "x"); rel.ReservedFor != "c" {
		t.Fatalf("want reservation for c (b is inactive), got %+v", rel)
	}
	l = e.claim(c, room).Lease()
	e.clock.Advance(5 * time.Hour) // everybody but c is inactive now
	rel := e.release(c, l, "alone")
	if rel.State != stick.StateIdle || rel.ReservedFor != "" || rel.ClaimExpiresAt != nil {
		t.Fatalf("release with no other active member must leave the room idle: %+v", rel)
	}
	// The handoff still waits for whoever claims next.
	got := e.claim(c, room)
	if got.Reason != string(stick.GrantOpenClaim) || got.Handoff == nil || got.Handoff.Status != "alone" {
		t.Fatalf("idle claim must carry the pending handoff: %+v", got)
	}
}

func TestExplicitPass(t *testing.T) {
	e := newEnv(t)
	codex, claude, gemini := agent("codex"), agent("claude"), agent("gemini")
	room := e.join(codex).RoomID
	e.join(claude)
	e.join(gemini)
	l := e.claim(codex, room).Lease()
	h := stick.Handoff{Status: "found potential race in claim logic", NextAction: "assess lease fencing",
		Artifacts: []stick.Artifact{{Path: "src/claim.ts", Lines: []int{102, 140}, Role: stick.RoleReview}}}
	rel, err := e.svc.Pass(e.ctx, codex, l, "gemini", h)
	if err != nil {
		t.Fatal(err)
	}
	if rel.ReservedFor != "gemini" || rel.State != stick.StateReserved {
		t.Fatalf("pass: %+v", rel)
	}
	if got := e.try(claude, room); got.Status != stick.NotYet {
		t.Fatalf("claude was skipped: %+v", got)
	}
	got := e.claim(gemini, room)
	if got.Reason != string(stick.GrantDirectPass) || got.Handoff.Artifacts[0].Path != "src/claim.ts" || got.FromAgentID != "codex" {
		t.Fatalf("gemini's claim: %+v", got)
	}
	// After gemini releases, the sequence resumes from gemini's position: codex.
	if rel := e.release(gemini, got.Lease(), "assessed"); rel.ReservedFor != "codex" {
		t.Fatalf("sequence must resume after gemini: %+v", rel)
	}
}

func TestPassToUnknownOrInactiveMember(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.clock.Advance(5 * time.Hour)
	e.join(a) // a is present again, b is not
	l := e.claim(a, room).Lease()
	for _, tc := range []struct {
		to, why string
		code    stick.Code
	}{
		{"nobody", "not_a_member", stick.CodeUnknownMember},
		{"b", "inactive", stick.CodeUnknownMember},
		{"a", "", stick.CodeInvalidArgument},
		{"has space", "", stick.CodeInvalidArgument},
	} {
		_, err := e.svc.Pass(e.ctx, a, l, tc.to, handoff("x"))
		se := wantCode(t, err, tc.code)
		if tc.why != "" && (se.Details["why"] != tc.why || se.Details["to_agent_id"] != tc.to) {
			t.Fatalf("pass to %s: details %v", tc.to, se.Details)
		}
	}
	// Nothing changed: a still holds the stick with the same lease.
	if _, err := e.svc.Heartbeat(e.ctx, a, l); err != nil {
		t.Fatalf("a failed pass must leave the lease intact: %v", err)
	}
	if st := e.state(room); st.Owner != "a" || st.TurnID != 1 {
		t.Fatalf("state: %+v", st)
	}
}

func TestPassToGoneMemberRejected(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	b, killB := liveAgent(t, "b")
	room := e.join(a).RoomID
	e.join(b)
	l := e.claim(a, room).Lease()
	killB()
	_, err := e.svc.Pass(e.ctx, a, l, "b", handoff("x"))
	if se := wantCode(t, err, stick.CodeUnknownMember); se.Details["why"] != "gone" {
		t.Fatalf("details: %v", se.Details)
	}
}

// Release must not reserve for a member whose process is proven gone while a live member exists.
func TestReleaseSkipsGoneMember(t *testing.T) {
	e := newEnv(t)
	a, c := agent("a"), agent("c")
	b, killB := liveAgent(t, "b")
	room := e.join(a).RoomID
	e.join(b)
	e.join(c)
	l := e.claim(a, room).Lease()
	killB()
	if rel := e.release(a, l, "x"); rel.ReservedFor != "c" {
		t.Fatalf("release must skip the dead member b: %+v", rel)
	}
}

func TestWaitForTurnRedeliversLeaseToHolder(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	l := e.claim(a, room).Lease()
	e.release(a, l, "first")
	got := e.claim(b, room)
	again := e.claim(b, room)
	if again.LeaseID != got.LeaseID || again.TurnID != got.TurnID || again.Handoff == nil || again.Handoff.Status != "first" ||
		again.Reason != string(stick.GrantSequence) {
		t.Fatalf("a holder asking again must get the same lease and handoff back: %+v vs %+v", again, got)
	}
}
