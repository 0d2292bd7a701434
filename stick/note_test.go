package stick_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestPostMessages: a note carries its type (note by default), the event
// it replies to and its metadata, and anyone may post without the stick.
func TestPostMessages(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	e.claim(a, room)
	q, err := e.svc.Post(e.ctx, b, room, stick.Note{Text: "keep the old flag?", Type: "question", Metadata: json.RawMessage(`{"pr": 42}`)})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "yes", Type: "answer", ReplyTo: q.Event.Seq})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := e.svc.AppendNote(e.ctx, b, room, "CI is red")
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.RoomEvents(e.ctx, room, ans.Event.Seq-2, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]stick.Event{}
	for _, ev := range page.Events {
		got[ev.Seq] = ev
	}
	if ev := got[q.Event.Seq]; ev.MessageType != "question" || ev.From != "b" || string(ev.Data) != `{"pr": 42}` || ev.Ref != 0 {
		t.Errorf("question as stored: %+v", ev)
	}
	if ev := got[ans.Event.Seq]; ev.MessageType != "answer" || ev.Ref != q.Event.Seq {
		t.Errorf("answer as stored: %+v", ev)
	}
	if ev := got[plain.Seq]; ev.MessageType != "note" || ev.Text != "CI is red" {
		t.Errorf("plain note as stored: %+v", ev)
	}
	if st := e.state(room); st.Owner != "a" || st.TurnID != 1 {
		t.Errorf("notes changed the holder: %+v", st)
	}
}

// TestPostRejects: every bad field is invalid_argument naming it, and
// nothing is posted.
func TestPostRejects(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	elsewhere, err := e.svc.JoinPath(e.ctx, a, stick.JoinRequest{Path: mkRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	before := e.state(room).LastEventSeq
	for _, tc := range []struct {
		field string
		n     stick.Note
	}{
		{"text", stick.Note{}},
		{"message_type", stick.Note{Text: "x", Type: stick.NoteType(strings.Repeat("q", stick.MaxMessageTypeLen+1))}},
		{"message_type", stick.Note{Text: "x", Type: "two\nlines"}},
		{"reply_to", stick.Note{Text: "x", ReplyTo: -1}},
		{"reply_to", stick.Note{Text: "x", ReplyTo: before + 100}},
		{"reply_to", stick.Note{Text: "x", ReplyTo: e.state(elsewhere.RoomID).LastEventSeq}}, // another room's event
		{"metadata", stick.Note{Text: "x", Metadata: json.RawMessage(`[1, 2]`)}},
		{"metadata", stick.Note{Text: "x", Metadata: json.RawMessage(`{"a":`)}},
		{"metadata", stick.Note{Text: "x", Metadata: json.RawMessage(`"` + strings.Repeat("m", stick.MaxMetadataLen) + `"`)}},
		{"client_message_id", stick.Note{Text: "x", ClientMessageID: "has space"}},
	} {
		_, err := e.svc.Post(e.ctx, a, room, tc.n)
		if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != tc.field {
			t.Errorf("%+v: field %v, want %s (%v)", tc.n, se.Details["field"], tc.field, err)
		}
	}
	if after := e.state(room).LastEventSeq; after != before {
		t.Errorf("rejected posts wrote events: last seq %d -> %d", before, after)
	}
}

// TestPostIdempotent: sends with the same client message id, one after
// another or at once, post one event; every retry returns it, flagged as a
// duplicate. The id is the sender's own: another member may use it too.
func TestPostIdempotent(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	first, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "deploy done", ClientMessageID: "msg-1"})
	if err != nil || first.Duplicate {
		t.Fatalf("first send: %+v %v", first, err)
	}
	var wg sync.WaitGroup
	results := make([]stick.PostResult, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = e.svc.Post(e.ctx, a, room, stick.Note{Text: "deploy done (retry)", ClientMessageID: "msg-1"})
		}()
	}
	wg.Wait()
	for i, r := range results {
		if errs[i] != nil || !r.Duplicate || !r.TextDiffers || r.Event.Seq != first.Event.Seq || r.Event.Text != "deploy done" {
			t.Errorf("retry %d: %+v %v, want the first event flagged duplicate, with another text", i, r, errs[i])
		}
	}
	if same, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "deploy done", ClientMessageID: "msg-1"}); err != nil || !same.Duplicate || same.TextDiffers {
		t.Errorf("a retry with the same text: %+v %v", same, err)
	}
	theirs, err := e.svc.Post(e.ctx, b, room, stick.Note{Text: "mine", ClientMessageID: "msg-1"})
	if err != nil || theirs.Duplicate || theirs.Event.Seq == first.Event.Seq {
		t.Errorf("another sender's msg-1: %+v %v", theirs, err)
	}
	page, err := e.svc.RoomEvents(e.ctx, room, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, ev := range page.Events {
		if ev.Type == stick.EventNote {
			notes++
		}
	}
	if notes != 2 {
		t.Errorf("%d notes in the log, want 2", notes)
	}
}
