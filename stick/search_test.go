package stick_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestSearchRanking: the ranking puts the note that is most about the words
// first; handoffs, close conclusions and the current document are found,
// filters narrow, and a document's old versions are not.
func TestSearchRanking(t *testing.T) {
	e := newEnv(t)
	a, b := agent("a"), agent("b")
	room := e.join(a).RoomID
	e.join(b)
	post := func(c stick.Caller, typ stick.NoteType, text string) int64 {
		t.Helper()
		res, err := e.svc.Post(e.ctx, c, room, stick.Note{Text: text, Type: typ})
		if err != nil {
			t.Fatal(err)
		}
		return res.Event.Seq
	}
	weak := post(a, "", "Long notes about many things: the build, the docs, the release train, the changelog, "+
		"and at the very end a flaky test that nobody looked at yet, plus some words about lunch.")
	strong := post(b, stick.NoteQuestion, "Flaky test again: the flaky cache test is flaky under -race.")
	post(a, "", "Nothing to see here.")
	l := e.claim(a, room).Lease()
	rel, err := e.svc.Release(e.ctx, a, l, stick.Handoff{Status: "Found the deadlock in the watcher.",
		NextAction: "Fix the lock order.", OpenQuestions: []string{"Does the migration need a backfill?"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.UpdateDoc(e.ctx, b, room, "# Plan\n\nRemove the zeppelin adapter.\n", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.UpdateDoc(e.ctx, b, room, "# Plan\n\nKeep the blimp adapter.\n", 1); err != nil {
		t.Fatal(err)
	}

	hits := search(t, e, stick.SearchQuery{Query: "flaky test"})
	if len(hits) != 2 || hits[0].EventSeq != strong || hits[1].EventSeq != weak || hits[0].Score <= hits[1].Score {
		t.Fatalf("the note about flaky tests must rank first: %+v", hits)
	}
	if hits[0].Type != "question" || hits[0].From != "b" || hits[0].RoomPath != e.repo || !strings.Contains(hits[0].Snippet, "**flaky**") {
		t.Fatalf("a hit says where, what and who, with the match highlighted: %+v", hits[0])
	}
	if h := search(t, e, stick.SearchQuery{Query: "deadlock"}); len(h) != 1 || h[0].EventSeq != rel.EventSeq || h[0].Type != "release" {
		t.Fatalf("a handoff's status is found: %+v", h)
	}
	if h := search(t, e, stick.SearchQuery{Query: "backfill migrations"}); len(h) != 1 || h[0].EventSeq != rel.EventSeq {
		t.Fatalf("open questions are found, with stemming (migrations ~ migration): %+v", h)
	}
	bold, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "**Decision:** keep the **v1** wombat"})
	if err != nil {
		t.Fatal(err)
	}
	if h := search(t, e, stick.SearchQuery{Query: "wombat"}); len(h) != 1 || h[0].EventSeq != bold.Event.Seq ||
		h[0].Snippet != `\*\*Decision:\*\* keep the \*\*v1\*\* **wombat**` {
		t.Fatalf("the text's own ** must not read as a match: %+v", h)
	}
	if h := search(t, e, stick.SearchQuery{Query: "blimp"}); len(h) != 1 || h[0].Type != stick.DocumentHit || h[0].DocVersion != 2 || h[0].EventSeq != 0 {
		t.Fatalf("the current document is found: %+v", h)
	}
	if h := search(t, e, stick.SearchQuery{Query: "zeppelin"}); len(h) != 0 {
		t.Fatalf("an overwritten version is not: %+v", h)
	}
	if h := search(t, e, stick.SearchQuery{Query: "flak*", From: "a"}); len(h) != 1 || h[0].EventSeq != weak {
		t.Fatalf("prefix and author filter: %+v", h)
	}
	if h := search(t, e, stick.SearchQuery{Query: "flaky", Type: "question"}); len(h) != 1 || h[0].EventSeq != strong {
		t.Fatalf("type filter: %+v", h)
	}
	if h := search(t, e, stick.SearchQuery{Query: "flaky OR deadlock", Limit: 2}); len(h) != 2 {
		t.Fatalf("OR and limit: %+v", h)
	}
	if h := search(t, e, stick.SearchQuery{Query: `"test again"`}); len(h) != 1 || h[0].EventSeq != strong {
		t.Fatalf("a phrase: %+v", h)
	}

	other := newEnvAt(t, e)
	if h := search(t, e, stick.SearchQuery{Query: "flaky", RoomID: other}); len(h) != 0 {
		t.Fatalf("room filter: %+v", h)
	}
	if _, err := e.svc.Close(e.ctx, b, room, "done", "The zeppelin is gone for good."); err != nil {
		t.Fatal(err)
	}
	if h := search(t, e, stick.SearchQuery{Query: "zeppelin"}); len(h) != 2 {
		t.Fatalf("a closed room's conclusion (event and document) is found: %+v", h)
	}
	for _, c := range []struct {
		q     stick.SearchQuery
		code  stick.Code
		field string
	}{
		{stick.SearchQuery{}, stick.CodeInvalidArgument, "query"},
		{stick.SearchQuery{Query: "()"}, stick.CodeInvalidArgument, "query"},
		{stick.SearchQuery{Query: "x", Limit: stick.MaxSearchLimit + 1}, stick.CodeInvalidArgument, "limit"},
		{stick.SearchQuery{Query: "x", Limit: -1}, stick.CodeInvalidArgument, "limit"},
		{stick.SearchQuery{Query: "x", From: "a b"}, stick.CodeInvalidArgument, "from_agent_id"},
		{stick.SearchQuery{Query: "x", RoomID: "room_nope"}, stick.CodeRoomNotFound, ""},
	} {
		_, err := e.svc.Search(e.ctx, c.q)
		if se := wantCode(t, err, c.code); c.field != "" && se.Details["field"] != c.field {
			t.Errorf("%+v must name %s: %+v", c.q, c.field, se)
		}
	}
}

func search(t *testing.T, e *env, q stick.SearchQuery) []stick.SearchHit {
	t.Helper()
	hits, err := e.svc.Search(e.ctx, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return hits
}

// newEnvAt creates a second room in another workspace of e's store and
// returns its id.
func newEnvAt(t *testing.T, e *env) string {
	t.Helper()
	res, err := e.svc.JoinPath(e.ctx, agent("z"), stick.JoinRequest{Path: mkRepo(t)})
	if err != nil {
		t.Fatal(err)
	}
	return res.RoomID
}

// writeCounter is a Store that counts its write transactions.
type writeCounter struct {
	stick.Store
	updates atomic.Int32
}

func (w *writeCounter) Update(ctx context.Context, fn func(stick.Tx) error) error {
	w.updates.Add(1)
	return w.Store.Update(ctx, fn)
}

// catchUpCounter is a writeCounter that indexes lazily, counting the
// catch-ups it is asked for.
type catchUpCounter struct {
	*writeCounter
	ix       stick.SearchIndexer
	catchUps atomic.Int32
}

func (c *catchUpCounter) CatchUpSearch(ctx context.Context) error {
	c.catchUps.Add(1)
	if c.ix == nil { // the store under it indexes as it writes
		return nil
	}
	return c.ix.CatchUpSearch(ctx)
}

// TestSearchReadsOnly: a search runs in a read transaction. A store that
// indexes lazily is asked to catch up first, so the search finds the note
// committed just before it; a store without that capability is only read.
func TestSearchReadsOnly(t *testing.T) {
	e := newEnv(t)
	a := agent("a")
	room := e.join(a).RoomID
	note, err := e.svc.Post(e.ctx, a, room, stick.Note{Text: "the wombat escaped"})
	if err != nil {
		t.Fatal(err)
	}
	ix, _ := e.store.(stick.SearchIndexer)
	lazy := &catchUpCounter{writeCounter: &writeCounter{Store: e.store}, ix: ix}
	hits, err := newService(t, lazy).Search(e.ctx, stick.SearchQuery{Query: "wombat"})
	if err != nil || len(hits) != 1 || hits[0].EventSeq != note.Event.Seq {
		t.Fatalf("the note committed before the search must be found: %+v %v", hits, err)
	}
	if lazy.updates.Load() != 0 || lazy.catchUps.Load() != 1 {
		t.Fatalf("a search asks for one catch-up and writes nothing itself: %d catch-ups, %d writes", lazy.catchUps.Load(), lazy.updates.Load())
	}
	plain := &writeCounter{Store: e.store}
	if _, err := newService(t, plain).Search(e.ctx, stick.SearchQuery{Query: "wombat", RoomID: room}); err != nil {
		t.Fatal(err)
	}
	if plain.updates.Load() != 0 {
		t.Fatalf("a search wrote %d times through a store without catch-up", plain.updates.Load())
	}
}
