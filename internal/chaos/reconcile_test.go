package chaos

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// logClient is a client whose room's log is events, served in pages of
// two; its other calls are not made by the code under test.
type logClient struct {
	client
	log []stick.Event
}

func (c *logClient) events(_ context.Context, _ string, after int64) (stick.EventPage, error) {
	var page stick.EventPage
	for _, ev := range c.log {
		if ev.Seq > after && len(page.Events) < 2 {
			page.Events = append(page.Events, ev)
		}
	}
	if n := len(page.Events); n > 0 {
		page.Cursor = page.Events[n-1].Seq
		page.HasMore = page.Cursor < c.log[len(c.log)-1].Seq
	}
	return page, nil
}

// handOnEvent is a release or pass of turn by from with token tok.
func handOnEvent(seq, turn int64, typ stick.EventType, from, tok string) stick.Event {
	return stick.Event{Seq: seq, TurnID: turn, Type: typ, From: from, Handoff: &stick.Handoff{Status: tokenPrefix + tok, NextAction: "go"}}
}

func reconcilingAgent(events ...stick.Event) (*agent, *strings.Builder) {
	out := &strings.Builder{}
	return &agent{id: "me", room: "room_1", cl: &logClient{log: events}, out: out}, out
}

// A release refused by fencing whose event is in the log committed: its
// answer was lost. It is reported handed, as the log has it, and found.
func TestUnsureFindsAHandOnInTheLog(t *testing.T) {
	a, out := reconcilingAgent(
		stick.Event{Seq: 1, TurnID: 1, Type: stick.EventClaim, From: "me"},
		handOnEvent(2, 1, stick.EventRelease, "me", "me.t1.aa"),
		stick.Event{Seq: 3, TurnID: 2, Type: stick.EventClaim, From: "you"},
		handOnEvent(4, 2, stick.EventPass, "you", "you.t2.bb"),
		handOnEvent(5, 3, stick.EventRelease, "me", "me.t3.cc"),
	)
	g := grant{lease: stick.Lease{RoomID: "room_1", LeaseID: "lease_3", TurnID: 3}, expires: time.Now().Add(time.Minute)}
	err := a.unsure(context.Background(), "release", g, "me.t3.cc", stick.Errorf(stick.CodeStaleLease, "the lease ended"))
	if err != nil || out.String() != "found release\nhanded 5 release me.t3.cc\n" {
		t.Fatalf("unsure: %v, said %q", err, out)
	}
}

// One that is not in the log lost its lease, early or not as before.
func TestUnsureLosesALeaseNotInTheLog(t *testing.T) {
	a, out := reconcilingAgent(handOnEvent(2, 1, stick.EventRelease, "me", "me.t1.aa"))
	g := grant{lease: stick.Lease{RoomID: "room_1", LeaseID: "lease_3", TurnID: 3}, expires: time.Now().Add(-time.Second)}
	err := a.unsure(context.Background(), "pass", g, "me.t3.cc", stick.Errorf(stick.CodeTurnMismatch, "turn 4 now"))
	if err != nil || out.String() != "lost pass 3 turn_mismatch expired\n" {
		t.Fatalf("unsure: %v, said %q", err, out)
	}
}

// A takeover given back by a wait saw the newest handoff before it.
func TestTakenOverSeesTheNewestHandoff(t *testing.T) {
	a, _ := reconcilingAgent(
		handOnEvent(2, 1, stick.EventRelease, "you", "you.t1.aa"),
		handOnEvent(3, 2, stick.EventPass, "them", "them.t2.bb"),
		stick.Event{Seq: 4, TurnID: 3, Type: stick.EventTakeover, From: "me", To: "you"},
		handOnEvent(5, 3, stick.EventRelease, "me", "me.t3.cc"),
	)
	if tok, err := a.takenOver(context.Background(), 3); err != nil || tok != "them.t2.bb" {
		t.Fatalf("takenOver: %q, %v", tok, err)
	}
	if tok, err := a.takenOver(context.Background(), 9); err != nil || tok != "?" {
		t.Fatalf("takenOver of a turn never taken: %q, %v", tok, err)
	}
	a, _ = reconcilingAgent(stick.Event{Seq: 1, TurnID: 1, Type: stick.EventTakeover, From: "me"})
	if tok, err := a.takenOver(context.Background(), 1); err != nil || tok != noToken {
		t.Fatalf("takenOver with no handoff before: %q, %v", tok, err)
	}
}
