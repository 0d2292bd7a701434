package render_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// The relative times of the tables, which the CLI's golden files normalise.
func TestAgo(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "just now"}, {999 * time.Millisecond, "just now"}, {time.Second, "1s ago"}, {59 * time.Second, "59s ago"},
		{time.Minute, "1m ago"}, {59 * time.Minute, "59m ago"}, {time.Hour, "1h ago"}, {47 * time.Hour, "47h ago"},
		{48 * time.Hour, "2d ago"}, {400 * 24 * time.Hour, "400d ago"},
	} {
		if got := render.Ago(now, now.Add(-tc.d)); got != tc.want {
			t.Errorf("ago(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := render.Ago(now, time.Time{}); got != "never" {
		t.Errorf("ago(zero) = %q, want never", got)
	}
}

// tags is a Style that shows where each mark goes, as a page would.
type tags struct{}

func (tags) Bold(s string) string  { return "<b>" + s + "</b>" }
func (tags) Dim(s string) string   { return "<i>" + s + "</i>" }
func (tags) Warn(s string) string  { return "<w>" + s + "</w>" }
func (tags) State(s string) string { return "<" + s + ">" }

func TestWriteEventAndHandoff(t *testing.T) {
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	h := stick.Handoff{Status: "parser done\nlexer next", NextAction: "wire it",
		Artifacts:     []stick.Artifact{{Path: "lex.go", Lines: []int{3, 9}, Role: stick.RoleEdit, Note: "here"}},
		OpenQuestions: []string{"keep the flag?"}, DoNot: []string{"touch \x1b[2Jmain.go"}}
	evs := []stick.Event{
		{Seq: 7, Type: stick.EventRelease, TurnID: 2, From: "codex:1", To: "human:ana", CreatedAt: at, Handoff: &h},
		{Seq: 8, Type: stick.EventTakeover, TurnID: 3, From: "human:ana", To: "codex:1", Reason: "quiet", CreatedAt: at,
			Data: []byte(`{"takeover_reason":"owner_timeout"}`)},
		{Seq: 9, Type: stick.EventNote, TurnID: 3, From: "human:ana", MessageType: stick.NoteType("question"), Ref: 7, Text: "why?", CreatedAt: at},
		{Seq: 10, Type: stick.EventDoc, TurnID: 3, From: "human:ana", CreatedAt: at, Data: []byte(`{"op":"append","section":"Plan","size":5,"version":2}`)},
	}
	for _, tc := range []struct {
		style render.Style
		want  string
	}{
		{render.NoStyle, "" +
			"#7     2026-11-01 09:00:00  turn 2    release  codex:1 -> human:ana\n" +
			"  status: parser done\n    lexer next\n" +
			"  next:   wire it\n" +
			"  edit     lex.go:3-9  here\n" +
			"  question: keep the flag?\n" +
			"  do not:   touch \\x1b[2Jmain.go\n" +
			"#8     2026-11-01 09:00:00  turn 3    takeover human:ana -> codex:1 (owner_timeout: quiet)\n" +
			"#9     2026-11-01 09:00:00  turn 3    note     human:ana (question, re #7): why?\n" +
			"#10    2026-11-01 09:00:00  turn 3    doc      human:ana (doc v2, append to Plan)\n"},
		{tags{}, "" +
			"#7     2026-11-01 09:00:00  turn 2    <b>release </b> codex:1 -> human:ana\n" +
			"  <b>status:</b> parser done\n    lexer next\n" +
			"  <b>next:  </b> wire it\n" +
			"  edit     lex.go:3-9<i>  here</i>\n" +
			"  question: keep the flag?\n" +
			"  do not:   touch \\x1b[2Jmain.go\n" +
			"#8     2026-11-01 09:00:00  turn 3    <b>takeover</b> human:ana -> codex:1<i> (owner_timeout: quiet)</i>\n" +
			"#9     2026-11-01 09:00:00  turn 3    <b>note    </b> human:ana<i> (question, re #7)</i>: why?\n" +
			"#10    2026-11-01 09:00:00  turn 3    <b>doc     </b> human:ana<i> (doc v2, append to Plan)</i>\n"},
	} {
		var b strings.Builder
		for _, e := range evs {
			render.WriteEvent(&b, tc.style, e)
		}
		if b.String() != tc.want {
			t.Errorf("%T:\n got %q\nwant %q", tc.style, b.String(), tc.want)
		}
	}
}

func TestWriteState(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	lease := now.Add(45 * time.Minute)
	pending := stick.Event{Seq: 4, From: "codex:1", Handoff: &stick.Handoff{Status: "s", NextAction: "n"}}
	st := stick.RoomStatus{RoomID: "room_1", CanonicalPath: "/src/app", RoomKey: "github.com/acme/app", State: stick.StateOwned,
		Owner: "human:ana", TurnID: 3, LeaseExpires: &lease, Takeover: stick.ReasonOwnerTimeout, PendingHandoff: &pending,
		Members: []stick.MemberStatus{
			{AgentID: "human:ana", Ordinal: 1, Status: stick.MemberActive, TurnRole: "holder", LastSeenAt: now.Add(-time.Minute)},
			{AgentID: "codex:1", Ordinal: 2, Status: stick.MemberGone, LastSeenAt: now.Add(-3 * time.Hour)},
		}}
	var b strings.Builder
	render.WriteState(&b, tags{}, st, now)
	want := "" +
		"room <b>room_1</b> at /src/app\n" +
		"key    github.com/acme/app\n" +
		"state  <owned>, turn 3\n" +
		"holder <b>human:ana</b>, lease until 09:45:00\n" +
		"<w>takeover available: owner_timeout</w>\n" +
		"\n" +
		"<b>#</b>  <b>MEMBER</b>     <b>STATUS</b>    <b>TURN</b>    <b>LAST SEEN</b>\n" +
		"1  human:ana  <active>  holder  1m ago\n" +
		"2  codex:1    <gone>    -       3h ago\n" +
		"\npending handoff from codex:1 (event 4):\n" +
		"  <b>status:</b> s\n" +
		"  <b>next:  </b> n\n"
	if b.String() != want {
		t.Errorf("state:\n got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	st.Concluder, st.Takeover, st.PendingHandoff, st.Members = "codex:1", "", nil, nil
	render.WriteState(&b, tags{}, st, now)
	if !strings.Contains(b.String(), "holder <b>human:ana</b>, lease until 09:45:00\nconcluder <b>codex:1</b>\n\n") {
		t.Errorf("state with a concluder:\n%s", b.String())
	}
}

// A removal says who removed the member and why, its text made safe.
func TestRemovalInWords(t *testing.T) {
	data, _ := json.Marshal(stick.RemovedData{By: "ana", Reason: "done\x1b[2J", Gone: true, HeldTurn: 4})
	e := stick.Event{Type: stick.EventLeave, From: "bob", Reason: stick.ReasonRemoved, Data: data}
	if got, want := render.Removal(e), `removed by ana, its process gone, losing the stick: done\x1b[2J`; got != want {
		t.Fatalf("Removal = %q, want %q", got, want)
	}
	var b strings.Builder
	render.WriteEvent(&b, tags{}, e)
	if !strings.Contains(b.String(), "(removed by ana") {
		t.Fatalf("WriteEvent: %q", b.String())
	}
	if render.Removal(stick.Event{Type: stick.EventLeave, From: "bob"}) != "" {
		t.Fatal("a member that left by itself reads as removed")
	}
}
