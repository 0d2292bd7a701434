package stick_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func (e *env) sync(c stick.Caller, room string, req stick.SyncRequest) stick.SyncResult {
	e.t.Helper()
	res, err := e.svc.Sync(e.ctx, c, room, req)
	if err != nil {
		e.t.Fatalf("sync %s: %v", c.AgentID, err)
	}
	return res
}

func seqs(evs []stick.Event) []int64 {
	out := []int64{}
	for _, ev := range evs {
		out = append(out, ev.Seq)
	}
	return out
}

// TestSyncCatchesUp: a member that joins a busy room gets everything it
// has not been given, oldest first, handoffs included, in pages, from a
// cursor the store keeps; its own events count as seen.
func TestSyncCatchesUp(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	l := e.claim(a, room).Lease()
	e.note(a, room, "found the bug")
	e.join(b)
	e.release(a, l, "parser fixed")

	first := e.sync(b, room, stick.SyncRequest{MaxItems: 3})
	if first.Status != "ready" || !first.HasMore || len(first.Received) != 3 || first.Cursor != first.Received[2].Seq {
		t.Fatalf("first page: %+v", first)
	}
	rest := e.sync(b, room, stick.SyncRequest{})
	if rest.HasMore || rest.Status != "ready" {
		t.Fatalf("second page: %+v", rest)
	}
	all := append(first.Received, rest.Received...)
	var types []stick.EventType
	for i, ev := range all {
		types = append(types, ev.Type)
		if i > 0 && ev.Seq <= all[i-1].Seq {
			t.Fatalf("not oldest first: %v", seqs(all))
		}
	}
	want := []stick.EventType{stick.EventJoin, stick.EventClaim, stick.EventNote, stick.EventRelease}
	if len(types) != len(want) {
		t.Fatalf("events %v, want %v (b's own join is skipped)", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("events %v, want %v", types, want)
		}
	}
	if h := all[3].Handoff; h == nil || h.Status != "parser fixed" {
		t.Fatalf("the release's handoff is not delivered: %+v", all[3])
	}
	if again := e.sync(b, room, stick.SyncRequest{}); again.Status != "empty" || len(again.Received) != 0 || again.Cursor != rest.Cursor {
		t.Fatalf("nothing new: %+v", again)
	}
	// A's own events are seen: its first sync gives b's join only.
	if own := e.sync(a, room, stick.SyncRequest{}); len(own.Received) != 1 || own.Received[0].From != "b" {
		t.Fatalf("a's sync: %+v", own)
	}
	if self := e.sync(a, room, stick.SyncRequest{IncludeSelf: true, CursorReset: true}); len(self.Received) != len(all)+1 {
		t.Fatalf("replay with self: %v", seqs(self.Received))
	}
}

func (e *env) note(c stick.Caller, room, text string) stick.Event {
	e.t.Helper()
	ev, err := e.svc.AppendNote(e.ctx, c, room, text)
	if err != nil {
		e.t.Fatal(err)
	}
	return ev
}

// TestSyncManualAck: with manual acknowledgement the same events come
// back until acknowledged; ack_through moves the cursor, never back and
// never past the log; a reset replays.
func TestSyncManualAck(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	n1, n2 := e.note(a, room, "one"), e.note(a, room, "two")
	e.sync(b, room, stick.SyncRequest{}) // catch up to now
	n3 := e.note(a, room, "three")
	p := e.sync(b, room, stick.SyncRequest{ManualAck: true})
	q := e.sync(b, room, stick.SyncRequest{ManualAck: true})
	if len(p.Received) != 1 || p.Received[0].Seq != n3.Seq || len(q.Received) != 1 || p.Cursor != q.Cursor {
		t.Fatalf("unacknowledged events must come back: %+v then %+v", p, q)
	}
	ack := n3.Seq
	if r := e.sync(b, room, stick.SyncRequest{ManualAck: true, AckThrough: &ack}); r.Cursor != n3.Seq || len(r.Received) != 0 {
		t.Fatalf("after ack: %+v", r)
	}
	back := n1.Seq
	if r := e.sync(b, room, stick.SyncRequest{ManualAck: true, AckThrough: &back}); r.Cursor != n3.Seq {
		t.Fatalf("ack moved the cursor back: %+v", r)
	}
	past := n3.Seq + 10
	_, err := e.svc.Sync(e.ctx, b, room, stick.SyncRequest{ManualAck: true, AckThrough: &past})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "ack_through" {
		t.Fatalf("ack past the log: %v", err)
	}
	_, err = e.svc.Sync(e.ctx, b, room, stick.SyncRequest{AckThrough: &ack})
	wantCode(t, err, stick.CodeInvalidArgument)
	if r := e.sync(b, room, stick.SyncRequest{CursorReset: true}); len(r.Received) < 3 || r.Received[0].Seq > n1.Seq || r.Cursor < n2.Seq {
		t.Fatalf("reset must replay from the start: %v", seqs(r.Received))
	}
}

// TestSyncOutbox: the outbox is posted before reading, idempotently; a bad
// note names its place and posts nothing, not even the good ones.
func TestSyncOutbox(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	out := []stick.Note{{Text: "q?", Type: stick.NoteQuestion, ClientMessageID: "m1"}, {Text: "fyi"}}
	r := e.sync(a, room, stick.SyncRequest{Outbox: out})
	if len(r.Sent) != 2 || r.Sent[0].Event.MessageType != stick.NoteQuestion || r.Sent[0].Duplicate {
		t.Fatalf("sent: %+v", r.Sent)
	}
	again := e.sync(a, room, stick.SyncRequest{Outbox: out[:1]})
	if !again.Sent[0].Duplicate || again.Sent[0].Event.Seq != r.Sent[0].Event.Seq {
		t.Fatalf("retried outbox: %+v", again.Sent)
	}
	before := e.state(room).LastEventSeq
	bad := []stick.Note{{Text: "fine"}, {Text: "x", Metadata: json.RawMessage(`[]`)}}
	_, err := e.svc.Sync(e.ctx, a, room, stick.SyncRequest{Outbox: bad})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "outbox[1].metadata" {
		t.Fatalf("bad outbox: %v", err)
	}
	bad[1] = stick.Note{Text: "x", ReplyTo: before + 50}
	_, err = e.svc.Sync(e.ctx, a, room, stick.SyncRequest{Outbox: bad})
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "outbox[1].reply_to" {
		t.Fatalf("bad reply in outbox: %v", err)
	}
	if after := e.state(room).LastEventSeq; after != before {
		t.Fatalf("a rejected outbox posted events: %d -> %d", before, after)
	}
	got := e.sync(b, room, stick.SyncRequest{})
	if len(got.Received) != 3 { // a's join, the question, the fyi
		t.Fatalf("b received %v", seqs(got.Received))
	}
}

// TestSyncWaits: a sync with a wait returns as soon as another member
// posts, and times out on the room's clock when nobody does.
func TestSyncWaits(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.sync(b, room, stick.SyncRequest{})
	got := make(chan stick.SyncResult, 1)
	go func() { got <- e.sync(b, room, stick.SyncRequest{Wait: time.Minute}) }()
	e.settle(1)
	n := e.note(a, room, "wake up")
	select {
	case r := <-got:
		if r.Status != "ready" || len(r.Received) != 1 || r.Received[0].Seq != n.Seq {
			t.Fatalf("woken sync: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting sync did not see the note")
	}
	go func() { got <- e.sync(b, room, stick.SyncRequest{Wait: time.Minute}) }()
	e.settle(1)
	e.note(b, room, "my own note wakes nobody")
	e.clock.Advance(time.Minute)
	select {
	case r := <-got:
		if r.Status != "timeout" || len(r.Received) != 0 {
			t.Fatalf("timed-out sync: %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting sync did not time out")
	}
}

// TestSyncClosedRoomAndPresence: a closed room is still read, never
// written; every sync refreshes the caller's presence.
func TestSyncClosedRoomAndPresence(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.clock.Advance(10 * time.Second)
	e.sync(b, room, stick.SyncRequest{})
	for _, m := range e.state(room).Members {
		if m.AgentID == "b" && !m.LastSeenAt.Equal(epoch.Add(10*time.Second)) {
			t.Fatalf("sync did not refresh b's presence: %v", m.LastSeenAt)
		}
	}
	if _, err := e.svc.Close(e.ctx, a, room, "done", "shipped"); err != nil {
		t.Fatal(err)
	}
	r := e.sync(b, room, stick.SyncRequest{})
	if len(r.Received) != 1 || r.Received[0].Type != stick.EventClose {
		t.Fatalf("closed room read: %+v", r)
	}
	_, err := e.svc.Sync(e.ctx, b, room, stick.SyncRequest{Outbox: []stick.Note{{Text: "late"}}})
	wantCode(t, err, stick.CodeRoomClosed)
}
