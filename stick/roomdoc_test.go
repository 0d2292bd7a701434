package stick_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestDocUpdateConflict: updates compare and swap on the version; a stale
// one is version_conflict with the current version and changes nothing.
func TestDocUpdateConflict(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	d, err := e.svc.ReadDoc(e.ctx, room, 0)
	if err != nil || d.Version != 0 || d.Content != "" {
		t.Fatalf("a new room's document is the empty version 0: %+v %v", d, err)
	}
	v1, err := e.svc.UpdateDoc(e.ctx, a, room, "# Plan\n\n- step one\n", 0)
	if err != nil || v1.Version != 1 || v1.Author != "a" || v1.Op != stick.DocUpdate || v1.Size != len(v1.Content) {
		t.Fatalf("first update: %+v %v", v1, err)
	}
	before := e.state(room).LastEventSeq
	_, err = e.svc.UpdateDoc(e.ctx, b, room, "# Other plan\n", 0)
	se := wantCode(t, err, stick.CodeVersionConflict)
	if se.Details["current_version"] != int64(1) || se.Details["updated_by"] != "a" || !strings.Contains(se.Hint, "expected_version 1") {
		t.Fatalf("a conflict must name the current version and its author: %+v", se)
	}
	if e.state(room).LastEventSeq != before {
		t.Fatal("a conflicting update must write nothing")
	}
	same, err := e.svc.UpdateDoc(e.ctx, b, room, v1.Content, 1)
	if err != nil || same.Version != 1 || e.state(room).LastEventSeq != before {
		t.Fatalf("an update to the same content must write nothing: %+v %v", same, err)
	}
	v2, err := e.svc.UpdateDoc(e.ctx, b, room, "# Plan\n\n- step one\n- step two\n", 1)
	if err != nil || v2.Version != 2 {
		t.Fatalf("update with the version read: %+v %v", v2, err)
	}
	old, err := e.svc.ReadDoc(e.ctx, room, 1)
	if err != nil || old.Content != v1.Content || old.Author != "a" {
		t.Fatalf("any version stays readable: %+v %v", old, err)
	}
	hist, err := e.svc.DocHistory(e.ctx, room)
	if err != nil || len(hist) != 2 || hist[0].Version != 1 || hist[1].Author != "b" || hist[1].Size != len(v2.Content) {
		t.Fatalf("history: %+v %v", hist, err)
	}
	page, _ := e.svc.RoomEvents(e.ctx, room, before, 0)
	if len(page.Events) != 1 || page.Events[0].Type != stick.EventDoc || page.Events[0].Seq != v2.EventSeq {
		t.Fatalf("each write is a doc event: %+v", page.Events)
	}
	var data map[string]any
	if json.Unmarshal(page.Events[0].Data, &data) != nil || data["version"] != float64(2) || data["op"] != "update" {
		t.Fatalf("a doc event says its version and op: %s", page.Events[0].Data)
	}
}

// TestDocAppendConcurrent: appends need no version and never lose each
// other, and land under their section.
func TestDocAppendConcurrent(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	if _, err := e.svc.UpdateDoc(e.ctx, a, room, "# Plan\n\n## Decisions\n\n## Risks\n\n- none yet\n", 0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := agent(fmt.Sprintf("w%d", i))
			e.join(c)
			if _, err := e.svc.AppendDoc(e.ctx, c, room, fmt.Sprintf("- decision %d", i), "decisions"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	d, _ := e.svc.ReadDoc(e.ctx, room, 0)
	if d.Version != 9 {
		t.Fatalf("eight appends make eight versions: %d", d.Version)
	}
	dec, risks := strings.Index(d.Content, "## Decisions"), strings.Index(d.Content, "## Risks")
	for i := range 8 {
		at := strings.Index(d.Content, fmt.Sprintf("- decision %d\n", i))
		if at < dec || at > risks {
			t.Fatalf("decision %d must be under Decisions:\n%s", i, d.Content)
		}
	}
	end, err := e.svc.AppendDoc(e.ctx, a, room, "trailing words", "")
	if err != nil || !strings.HasSuffix(end.Content, "- none yet\n\ntrailing words\n") {
		t.Fatalf("an append without a section goes to the end: %q %v", end.Content, err)
	}
	page, _ := e.svc.RoomEvents(e.ctx, room, end.EventSeq-1, 0)
	if len(page.Events) != 1 || page.Events[0].Text != "trailing words" {
		t.Fatalf("an append event carries the appended text: %+v", page.Events)
	}
}

// TestDocErrors: every bad input names its field and writes nothing.
func TestDocErrors(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	before := e.state(room).LastEventSeq
	for _, c := range []struct {
		err   error
		code  stick.Code
		field string
	}{
		{second(e.svc.UpdateDoc(e.ctx, a, room, strings.Repeat("x", stick.MaxDocLen+1), 0)), stick.CodeInvalidArgument, "content"},
		{second(e.svc.UpdateDoc(e.ctx, a, room, "\xff", 0)), stick.CodeInvalidArgument, "content"},
		{second(e.svc.UpdateDoc(e.ctx, a, room, "x", -1)), stick.CodeInvalidArgument, "expected_version"},
		{second(e.svc.AppendDoc(e.ctx, a, room, " ", "")), stick.CodeInvalidArgument, "text"},
		{second(e.svc.AppendDoc(e.ctx, a, room, "x", "a\nb")), stick.CodeInvalidArgument, "section"},
		{second(e.svc.AppendDoc(e.ctx, a, room, "x", "##")), stick.CodeInvalidArgument, "section"},
		{second(e.svc.ReadDoc(e.ctx, room, 5)), stick.CodeInvalidArgument, "version"},
		{second(e.svc.ReadDoc(e.ctx, room, -1)), stick.CodeInvalidArgument, "version"},
		{second(e.svc.ReadDoc(e.ctx, "", 0)), stick.CodeInvalidArgument, "room_id"},
		{second(e.svc.ReadDoc(e.ctx, "room_nope", 0)), stick.CodeRoomNotFound, ""},
		{second(e.svc.DocHistory(e.ctx, "room_nope")), stick.CodeRoomNotFound, ""},
		{second(e.svc.AppendDoc(e.ctx, agent("stranger"), room, "x", "")), stick.CodeUnknownMember, ""},
		{second(e.svc.UpdateDoc(e.ctx, agent("stranger"), room, "x", 0)), stick.CodeUnknownMember, ""},
	} {
		se := wantCode(t, c.err, c.code)
		if c.field != "" && se.Details["field"] != c.field {
			t.Errorf("%s must name field %s: %+v", se.Message, c.field, se.Details)
		}
	}
	if e.state(room).LastEventSeq != before {
		t.Fatal("rejected writes must write nothing")
	}
	if _, err := e.svc.UpdateDoc(e.ctx, a, room, "", 0); err != nil {
		t.Fatalf("an empty document is a valid content: %v", err)
	}
}

// TestCloseWritesConclusion: close writes the conclusion section in the
// same transaction, a second close revises it, and afterwards the document
// is read-only but readable.
func TestCloseWritesConclusion(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	if _, err := e.svc.UpdateDoc(e.ctx, a, room, "# Plan\n\n## Conclusion\n\ndraft\n\n## Appendix\n\nlogs\n", 0); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Close(e.ctx, a, room, "done", "Shipped v2; the flaky test was a race in the cache.")
	if err != nil || res.DocVersion != 2 {
		t.Fatalf("close: %+v %v", res, err)
	}
	d, _ := e.svc.ReadDoc(e.ctx, room, 0)
	want := "# Plan\n\n## Conclusion\n\nShipped v2; the flaky test was a race in the cache.\n\n## Appendix\n\nlogs\n"
	if d.Content != want || d.Op != stick.DocConclusion || d.EventSeq != res.EventSeq {
		t.Fatalf("the conclusion replaces the section:\n%q\n%+v", d.Content, d.DocVersion)
	}
	again, err := e.svc.Close(e.ctx, a, room, "done", "Shipped v2.1.")
	if err != nil || !again.Revised || again.DocVersion != 3 {
		t.Fatalf("a second close revises: %+v %v", again, err)
	}
	if d, _ := e.svc.ReadDoc(e.ctx, room, 0); !strings.Contains(d.Content, "## Conclusion\n\nShipped v2.1.\n\n## Appendix") || strings.Contains(d.Content, "Shipped v2;") {
		t.Fatalf("the revised conclusion replaces the first: %q", d.Content)
	}
	wantCode(t, second(e.svc.UpdateDoc(e.ctx, a, room, "x", 3)), stick.CodeRoomClosed)
	wantCode(t, second(e.svc.AppendDoc(e.ctx, a, room, "x", "")), stick.CodeRoomClosed)
	wantCode(t, second(e.svc.Post(e.ctx, a, room, stick.Note{Text: "x"})), stick.CodeRoomClosed)
	if h, err := e.svc.DocHistory(e.ctx, room); err != nil || len(h) != 3 {
		t.Fatalf("history stays readable after close: %+v %v", h, err)
	}
	if res, err := e.svc.Close(e.ctx, a, room, "", ""); err != nil || res.DocVersion != 0 {
		t.Fatalf("a close without a conclusion leaves the document: %+v %v", res, err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestTranscript: one read gives the room, its log after a point and its
// document, in agreement.
func TestTranscript(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	l := e.claim(a, room).Lease()
	e.release(a, l, "did the thing")
	if _, err := e.svc.AppendDoc(e.ctx, b, room, "- use sqlite", "Decisions"); err != nil {
		t.Fatal(err)
	}
	tr, err := e.svc.Transcript(e.ctx, room, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Room.Members) != 2 || tr.Document.Version != 1 || tr.Events[len(tr.Events)-1].Type != stick.EventDoc ||
		int64(len(tr.Events)) != tr.Room.LastEventSeq-tr.Events[0].Seq+1 || tr.Events[2].Type != stick.EventClaim {
		t.Fatalf("transcript: %+v", tr)
	}
	var rel *stick.Event
	for i := range tr.Events {
		if tr.Events[i].Type == stick.EventRelease {
			rel = &tr.Events[i]
		}
	}
	if rel == nil || rel.Handoff == nil || rel.Handoff.Status != "did the thing" {
		t.Fatalf("handoffs come in full: %+v", rel)
	}
	tail, err := e.svc.Transcript(e.ctx, room, rel.Seq)
	if err != nil || len(tail.Events) != 1 || tail.After != rel.Seq {
		t.Fatalf("after: %+v %v", tail.Events, err)
	}
	q1, _ := e.svc.Post(e.ctx, a, room, stick.Note{Text: "keep the v1 flag?", Type: stick.NoteQuestion})
	q2, _ := e.svc.Post(e.ctx, b, room, stick.Note{Text: "which lexer?", Type: stick.NoteQuestion})
	if _, err := e.svc.Post(e.ctx, b, room, stick.Note{Text: "yes, until v2", Type: stick.NoteAnswer, ReplyTo: q1.Event.Seq}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "which parser, too?", Type: stick.NoteQuestion, ReplyTo: q2.Event.Seq}); err != nil {
		t.Fatal(err)
	}
	dec, _ := e.svc.Post(e.ctx, a, room, stick.Note{Text: "we use sqlite", Type: stick.NoteDecision})
	tr, _ = e.svc.Transcript(e.ctx, room, 0)
	d := tr.Digest()
	if d.Handoff == nil || d.Handoff.Seq != rel.Seq || len(d.OpenQuestions) != 2 || d.OpenQuestions[0].Seq != q2.Event.Seq ||
		len(d.Decisions) != 1 || d.Decisions[0].Seq != dec.Event.Seq {
		t.Fatalf("digest: %+v", d)
	}
	wantCode(t, second(e.svc.Transcript(e.ctx, room, -1)), stick.CodeInvalidArgument)
	wantCode(t, second(e.svc.Transcript(e.ctx, "room_nope", 0)), stick.CodeRoomNotFound)
}

// TestCloseConclusionTooLong: a conclusion that would push the document
// past its limit is refused, and the room stays open.
func TestCloseConclusionTooLong(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	if _, err := e.svc.UpdateDoc(e.ctx, a, room, strings.Repeat("x", stick.MaxDocLen-100), 0); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Close(e.ctx, a, room, "", strings.Repeat("c", 1000))
	if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "conclusion" {
		t.Fatalf("want conclusion named: %+v", se)
	}
	if st := e.state(room); st.State == stick.StateClosed {
		t.Fatal("a refused close must leave the room open")
	}
}
