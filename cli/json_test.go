package cli

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// decodeJSON runs a command with --json that must succeed and decodes its
// output into v.
func (s *scene) decodeJSON(v any, args ...string) {
	s.t.Helper()
	out := s.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		s.t.Fatalf("stick %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// defaultPolicyMS is the protocol's default policy in its JSON form.
var defaultPolicyMS = map[string]int64{
	"owner_lease_ttl_ms": 2_700_000, "claim_ttl_ms": 1_200_000, "heartbeat_interval_ms": 300_000,
	"presence_ttl_ms": 14_400_000, "wait_for_turn_max_wait_ms": 30_000, "proxy_grace_ms": 10_000,
}

// policyMS decodes the "policy" object of a JSON document.
func policyMS(t *testing.T, doc string) map[string]int64 {
	t.Helper()
	var v struct {
		Policy map[string]int64 `json:"policy"`
	}
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return v.Policy
}

func checkTime(t *testing.T, what string, got time.Time, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestJSONWhoami(t *testing.T) {
	s := newScene(t)
	for _, tc := range []struct {
		args     []string
		id, why  string
		wantKeys int
	}{
		{[]string{"whoami"}, "human:ana", "a person at a terminal (user ana)", 2},
		{[]string{"whoami", "--agent", "reviewer"}, "reviewer", "from the --agent flag", 2},
	} {
		var m map[string]string
		s.decodeJSON(&m, tc.args...)
		if len(m) != tc.wantKeys || m["agent_id"] != tc.id || !strings.HasPrefix(m["why"], tc.why) {
			t.Errorf("%v --json: %v", tc.args, m)
		}
	}
}

func TestJSONJoin(t *testing.T) {
	s := newScene(t)
	pkg := s.mkdir("pkg")

	var j stick.JoinResult
	out := s.ok("join", pkg, "--json")
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.AgentID != "human:ana" || !strings.HasPrefix(j.RoomID, "room_") || j.CanonicalPath != s.repo ||
		j.RequestedPath != pkg || j.WorkspaceRoot != s.repo || !j.Created || !j.NewMember || j.Warning != "" {
		t.Errorf("first join: %+v", j)
	}
	if got := policyMS(t, out); !reflect.DeepEqual(got, defaultPolicyMS) {
		t.Errorf("join policy = %v, want %v", got, defaultPolicyMS)
	}
	if j.HandoffTemplate.Status == "" || j.HandoffTemplate.NextAction == "" {
		t.Errorf("join has no handoff template: %+v", j.HandoffTemplate)
	}
	r := j.Room
	if r.RoomID != j.RoomID || r.State != stick.StateIdle || r.TurnID != 0 || r.Owner != "" || len(r.Members) != 1 || r.LastEventSeq != 1 {
		t.Errorf("first join room: %+v", r)
	}
	checkTime(t, "room created_at", r.CreatedAt, goldenStart)
	m := r.Members[0]
	if m.AgentID != "human:ana" || m.Ordinal != 1 || m.Status != "away" || m.Kind != stick.KindOneShot || m.TurnRole != "" || m.IdleMS != 0 {
		t.Errorf("first member: %+v", m)
	}
	checkTime(t, "joined_at", m.JoinedAt, goldenStart)

	s.clock.Advance(time.Minute)
	s.decodeJSON(&j, "join", s.repo, "--agent", "codex:1")
	if j.AgentID != "codex:1" || j.Created || !j.NewMember || len(j.Room.Members) != 2 ||
		j.Room.Members[1].AgentID != "codex:1" || j.Room.Members[1].Ordinal != 2 || j.Room.Members[0].IdleMS != time.Minute.Milliseconds() {
		t.Errorf("second member: %+v", j)
	}

	first := j.RoomID
	j = stick.JoinResult{}
	s.decodeJSON(&j, "join", s.repo)
	if j.RoomID != first || j.Created || j.NewMember || len(j.Room.Members) != 2 {
		t.Errorf("joining again: %+v", j)
	}

	j = stick.JoinResult{}
	s.decodeJSON(&j, "join", pkg, "--force-new")
	if j.RoomID == first || !j.Created || !j.NewMember || j.CanonicalPath != pkg || !strings.Contains(j.Warning, first) {
		t.Errorf("nested room: %+v", j)
	}
}

func TestJSONList(t *testing.T) {
	s := newScene(t)
	var rooms []stick.RoomSummary
	out := s.ok("list", s.repo, "--json")
	if err := json.Unmarshal([]byte(out), &rooms); err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("no rooms must print an empty array, not null: %q", out)
	}

	pkg := s.mkdir("pkg")
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	s.clock.Advance(time.Minute)
	released := s.clock.Now()
	s.release(codex, s.claim(codex, room), sampleHandoff)
	s.clock.Advance(time.Minute)
	s.join("human:ana", pkg, true)
	nested := s.roomID(pkg)

	s.decodeJSON(&rooms, "list", pkg)
	if len(rooms) != 2 {
		t.Fatalf("list: %+v", rooms)
	}
	n, r := rooms[0], rooms[1] // deepest first
	if n.RoomID != nested || n.CanonicalPath != pkg || n.State != stick.StateIdle || n.TurnID != 0 || n.Members != 1 || n.ActiveMembers != 1 {
		t.Errorf("nested room: %+v", n)
	}
	checkTime(t, "nested updated_at", n.UpdatedAt, released.Add(time.Minute))
	if r.RoomID != room || r.CanonicalPath != s.repo || r.State != stick.StateReserved || r.Owner != "" || r.ReservedFor != "human:ana" ||
		r.TurnID != 1 || r.Members != 2 || r.ActiveMembers != 2 {
		t.Errorf("root room: %+v", r)
	}
	checkTime(t, "root updated_at", r.UpdatedAt, released)

	var all []stick.RoomSummary
	s.decodeJSON(&all, "list", "--all")
	if len(all) != 2 {
		t.Errorf("list --all: %+v", all)
	}

	s.clock.Advance(5 * time.Hour) // past the presence TTL
	s.decodeJSON(&rooms, "list", s.repo)
	if rooms[0].ActiveMembers != 0 || rooms[0].State != stick.StateDormant {
		t.Errorf("after 5 h: %+v", rooms[0])
	}
}

func TestJSONState(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	s.clock.Advance(time.Minute)
	claimed := s.clock.Now()
	l := s.claim(codex, room)

	var st stick.RoomStatus
	out := s.ok("state", s.repo, "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.RoomID != room || st.CanonicalPath != s.repo || st.State != stick.StateOwned || st.StoredState != stick.StateOwned ||
		st.Owner != "codex:1" || st.ReservedFor != "" || st.TurnID != 1 || st.Takeover != "" || st.PendingHandoff != nil ||
		st.ClaimExpires != nil || st.ClosedAt != nil || st.LastEventSeq != 3 {
		t.Errorf("owned: %+v", st)
	}
	if st.LeaseExpires == nil {
		t.Fatal("owned: no lease_expires_at")
	}
	checkTime(t, "lease_expires_at", *st.LeaseExpires, claimed.Add(45*time.Minute))
	if got := policyMS(t, out); !reflect.DeepEqual(got, defaultPolicyMS) {
		t.Errorf("state policy = %v, want %v", got, defaultPolicyMS)
	}
	type member struct{ id, status, role string }
	members := func(st stick.RoomStatus) []member {
		var ms []member
		for _, m := range st.Members {
			ms = append(ms, member{m.AgentID, m.Status, m.TurnRole})
		}
		return ms
	}
	if got, want := members(st), []member{{"human:ana", "away", ""}, {"codex:1", "active", "holder"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("owned members = %v, want %v", got, want)
	}

	s.clock.Advance(50 * time.Minute)
	st = stick.RoomStatus{}
	s.decodeJSON(&st, "state", s.repo)
	if st.State != stick.StateStaleOwner || st.StoredState != stick.StateOwned || st.Takeover != stick.ReasonOwnerTimeout || st.Owner != "codex:1" {
		t.Errorf("stale: %+v", st)
	}

	released := s.clock.Now()
	s.release(codex, l, sampleHandoff)
	st = stick.RoomStatus{}
	s.decodeJSON(&st, "state", s.repo)
	if st.State != stick.StateReserved || st.Owner != "" || st.ReservedFor != "human:ana" || st.TurnID != 1 || st.LeaseExpires != nil || st.Takeover != "" {
		t.Errorf("reserved: %+v", st)
	}
	if st.ClaimExpires == nil {
		t.Fatal("reserved: no claim_expires_at")
	}
	checkTime(t, "claim_expires_at", *st.ClaimExpires, released.Add(20*time.Minute))
	if got, want := members(st), []member{{"human:ana", "away", "reserved"}, {"codex:1", "active", ""}}; !reflect.DeepEqual(got, want) {
		t.Errorf("reserved members = %v, want %v", got, want)
	}
	h := st.PendingHandoff
	if h == nil || h.Type != stick.EventRelease || h.From != "codex:1" || h.To != "human:ana" || h.Seq != 4 || h.Handoff == nil ||
		!reflect.DeepEqual(*h.Handoff, sampleHandoff) {
		t.Errorf("pending handoff: %+v", h)
	}
}

func TestJSONEvents(t *testing.T) {
	s := newScene(t)
	room := s.handedOn()
	s.ok("note", "--path", s.repo, "CI is red")
	s.ok("policy", s.repo, "--lease", "10m")

	var page stick.EventPage
	s.decodeJSON(&page, "events", s.repo)
	type ev struct {
		seq        int64
		typ        stick.EventType
		from, to   string
		turn       int64
		minutes    int
		reason     string
		text       string
		hasHandoff bool
	}
	var got []ev
	for _, e := range page.Events {
		if e.RoomID != room || e.ID == "" {
			t.Errorf("event %d: room %q id %q", e.Seq, e.RoomID, e.ID)
		}
		got = append(got, ev{e.Seq, e.Type, e.From, e.To, e.TurnID, int(e.CreatedAt.Sub(goldenStart) / time.Minute), e.Reason, e.Text, e.Handoff != nil})
	}
	want := []ev{
		{1, stick.EventJoin, "human:ana", "", 0, 0, "", "", false},
		{2, stick.EventJoin, "codex:1", "", 0, 1, "", "", false},
		{3, stick.EventClaim, "codex:1", "", 1, 2, "open_claim", "", false},
		{4, stick.EventRelease, "codex:1", "human:ana", 1, 3, "", "", true},
		{5, stick.EventNote, "human:ana", "", 1, 4, "", "CI is red", false},
		{6, stick.EventPolicy, "human:ana", "", 1, 4, "", "", false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n got %v\nwant %v", got, want)
	}
	if page.Cursor != 6 || page.HasMore {
		t.Errorf("page: cursor %d has_more %v", page.Cursor, page.HasMore)
	}
	if h := page.Events[3].Handoff; h == nil || !reflect.DeepEqual(*h, sampleHandoff) {
		t.Errorf("release handoff: %+v", h)
	}

	page = stick.EventPage{}
	s.decodeJSON(&page, "events", s.repo, "--after", "2", "--limit", "2")
	if len(page.Events) != 2 || page.Events[0].Seq != 3 || page.Events[1].Seq != 4 || page.Cursor != 4 || !page.HasMore {
		t.Errorf("second page: %+v", page)
	}
	page = stick.EventPage{}
	out := s.ok("events", s.repo, "--after", "6", "--json")
	if err := json.Unmarshal([]byte(out), &page); err != nil || page.Events == nil || len(page.Events) != 0 || page.Cursor != 6 || page.HasMore {
		t.Errorf("past the end: an empty list, the same cursor: %q", out)
	}
}

func TestJSONNote(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	room := s.roomID(s.repo)
	s.clock.Advance(time.Minute)
	var res stick.PostResult
	s.decodeJSON(&res, "note", "--path", s.repo, "CI is red on main")
	e := res.Event
	if res.Duplicate || e.Type != stick.EventNote || e.MessageType != "note" || e.RoomID != room || e.Seq != 2 || e.From != "human:ana" ||
		e.Text != "CI is red on main" || e.TurnID != 0 || e.Handoff != nil {
		t.Errorf("note: %+v", res)
	}
	checkTime(t, "note created_at", e.CreatedAt, goldenStart.Add(time.Minute))

	// A question, its answer, and a retried send.
	var q, a, again stick.PostResult
	s.decodeJSON(&q, "note", "--path", s.repo, "--type", "question", "--id", "q1", "--metadata", `{"pr": 42}`, "keep the old flag?")
	s.decodeJSON(&a, "note", "--path", s.repo, "--type", "answer", "--reply-to", strconv.FormatInt(q.Event.Seq, 10), "yes")
	s.decodeJSON(&again, "note", "--path", s.repo, "--id", "q1", "keep the old flag? (retry)")
	var meta struct{ PR int }
	if q.Event.MessageType != "question" || json.Unmarshal(q.Event.Data, &meta) != nil || meta.PR != 42 || q.Event.ClientMessageID != "q1" {
		t.Errorf("question: %+v", q.Event)
	}
	if a.Event.MessageType != "answer" || a.Event.Ref != q.Event.Seq {
		t.Errorf("answer: %+v", a.Event)
	}
	if !again.Duplicate || again.Event.Seq != q.Event.Seq || again.Event.Text != "keep the old flag?" {
		t.Errorf("retry: %+v", again)
	}
}

func TestJSONLeave(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	var m map[string]any
	s.decodeJSON(&m, "leave", s.repo, "--agent", "codex:1")
	want := map[string]any{"room_id": s.roomID(s.repo), "agent_id": "codex:1", "left": true}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("leave = %v, want %v", m, want)
	}
	var st stick.RoomStatus
	s.decodeJSON(&st, "state", s.repo)
	if len(st.Members) != 1 || st.Members[0].AgentID != "human:ana" {
		t.Errorf("after leave: %+v", st.Members)
	}
}

func TestJSONClose(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	room := s.roomID(s.repo)
	s.clock.Advance(time.Minute)
	var c stick.CloseResult
	s.decodeJSON(&c, "close", s.repo, "--yes", "--reason", "v1 shipped")
	if c.RoomID != room || c.EventSeq != 2 || c.Revised {
		t.Errorf("close: %+v", c)
	}
	checkTime(t, "closed_at", c.ClosedAt, goldenStart.Add(time.Minute))

	s.clock.Advance(time.Minute)
	c = stick.CloseResult{}
	code, out, errOut := s.run("We chose B.\n", "close", s.repo, "--conclusion", "-", "--json")
	if err := json.Unmarshal([]byte(out), &c); code != 0 || err != nil || c.RoomID != room || c.EventSeq != 3 || !c.Revised {
		t.Errorf("closing again: %d %v %+v %s", code, err, c, errOut)
	}
	checkTime(t, "closed_at after a revision", c.ClosedAt, goldenStart.Add(time.Minute))

	var rooms []stick.RoomSummary
	s.decodeJSON(&rooms, "list", s.repo)
	if len(rooms) != 1 || rooms[0].State != stick.StateClosed {
		t.Errorf("list after close: %+v", rooms)
	}
	// close says "its log stays readable ('stick events')": it must be.
	var page stick.EventPage
	s.decodeJSON(&page, "events", s.repo, "--after", "1")
	if len(page.Events) != 2 || page.Events[0].Type != stick.EventClose || page.Events[0].Reason != "v1 shipped" ||
		page.Events[1].Type != stick.EventClose || page.Events[1].Text != "We chose B." {
		t.Errorf("events of the closed room: %+v", page)
	}
}

func TestJSONPolicy(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	for _, tc := range []struct {
		args []string
		want map[string]int64
	}{
		{nil, defaultPolicyMS},
		{[]string{"--lease", "10m", "--heartbeat", "1m", "--claim", "5m", "--presence", "2h", "--wait", "45s", "--grace", "3s"}, map[string]int64{
			"owner_lease_ttl_ms": 600_000, "claim_ttl_ms": 300_000, "heartbeat_interval_ms": 60_000,
			"presence_ttl_ms": 7_200_000, "wait_for_turn_max_wait_ms": 45_000, "proxy_grace_ms": 3_000,
		}},
		{[]string{"--claim", "0", "--wait", "0", "--grace", "0"}, map[string]int64{
			"owner_lease_ttl_ms": 600_000, "claim_ttl_ms": 1_200_000, "heartbeat_interval_ms": 60_000,
			"presence_ttl_ms": 7_200_000, "wait_for_turn_max_wait_ms": 30_000, "proxy_grace_ms": 10_000,
		}},
	} {
		var got map[string]int64
		s.decodeJSON(&got, append([]string{"policy", s.repo}, tc.args...)...)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("policy %v = %v, want %v", tc.args, got, tc.want)
		}
	}
	var st stick.RoomStatus
	s.decodeJSON(&st, "state", s.repo)
	if st.Policy.OwnerLeaseTTL != 10*time.Minute || st.Policy.ClaimTTL != 20*time.Minute {
		t.Errorf("state after policy changes: %+v", st.Policy)
	}
}
