package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// message-wake posts its notes to a receiver blocked in Sync in another
// process: every note comes back once, addressed to it, and the scenario
// is judged by p50 <= 2 ms.
func TestMessageWake(t *testing.T) {
	sc := Scenarios()[indexOf(Scenarios(), "message-wake")]
	rs, err := RunOne(context.Background(), sc, Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("results: %+v", rs)
	}
	r := rs[0]
	t.Logf("p50 %v, p99 %v, max %v, notes %v", r.P50, r.P99, r.Max, r.Notes)
	if r.Count != 50 || r.Unit != "messages" || len(r.Problems) > 0 {
		t.Fatalf("count %d %s, problems %v; want 50 messages and none", r.Count, r.Unit, r.Problems)
	}
	if r.P50 <= 0 || r.Max < r.P99 || r.P99 < r.P50 {
		t.Errorf("p50 %v, p99 %v, max %v: nothing was measured", r.P50, r.P99, r.Max)
	}
	if r.Target != "p50 <= 2 ms" || r.TargetMet != (r.P50 <= 2*time.Millisecond) {
		t.Errorf("target %q met %v with p50 %v", r.Target, r.TargetMet, r.P50)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "50 notes, each returned once by the receiver's Sync, addressed to it") {
		t.Errorf("notes %v: the notes received were not checked", r.Notes)
	}
}

// A Sync that does not return exactly the note sent, addressed to the
// receiver and among its addressed notes, is a problem of the scenario.
func TestMessageWakeChecksEachNote(t *testing.T) {
	const text = "message 3 for receiver: rebase"
	sent := stick.Event{Seq: 12, Type: stick.EventNote, From: "sender", Text: text, Recipients: []string{"receiver"}}
	right := func() stick.SyncResult {
		return stick.SyncResult{Status: "ready", Addressed: []stick.Event{sent}, Received: []stick.Event{}}
	}
	if msg := checkWake(right(), sent, text, "sender", "receiver"); msg != "" {
		t.Fatalf("the note as sent: %s", msg)
	}
	broadcast := sent
	broadcast.Recipients = nil
	other := sent
	other.Seq = 13
	cases := []struct {
		name string
		edit func(*stick.SyncResult)
		want string
	}{
		{"timed out", func(g *stick.SyncResult) { g.Status, g.Addressed = "timeout", nil }, "returned timeout without note 12"},
		{"in received", func(g *stick.SyncResult) { g.Addressed, g.Received = nil, []stick.Event{sent} }, "note 12 came in received, not in addressed"},
		{"another note", func(g *stick.SyncResult) { g.Addressed = []stick.Event{other} }, "returned event 13 as addressed, want note 12"},
		{"two notes", func(g *stick.SyncResult) { g.Addressed = append(g.Addressed, other) }, "returned 2 addressed notes ([12 13])"},
		{"another text", func(g *stick.SyncResult) { g.Addressed[0].Text = "message 4" }, `with the text "message 4"`},
		{"another sender", func(g *stick.SyncResult) { g.Addressed[0].From = "someone" }, `came from "someone"`},
		{"not addressed", func(g *stick.SyncResult) { g.Addressed = []stick.Event{broadcast} }, "came addressed to []"},
		{"more events", func(g *stick.SyncResult) { g.Received = []stick.Event{other} }, "also returned events [13]"},
	}
	for _, c := range cases {
		g := right()
		g.Addressed = append([]stick.Event(nil), g.Addressed...)
		c.edit(&g)
		if msg := checkWake(g, sent, text, "sender", "receiver"); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, msg, c.want)
		}
	}
}
