package store

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// TestSearchIndexHoldsDomainText: the index holds, for each event, exactly
// the text stick.SearchText gives of it with stick.HitType as its kind and
// its author, and nothing for events a search does not find.
func TestSearchIndexHoldsDomainText(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h := &stick.Handoff{Status: "parser done", NextAction: "test the lexer", OpenQuestions: []string{"why?", "who?"}}
	events := []stick.Event{
		{Type: stick.EventJoin, From: "ana"},
		{Type: stick.EventNote, From: "ana", Text: "the cache is flaky"},
		{Type: stick.EventNote, From: "ana", Text: "why?", MessageType: stick.NoteQuestion},
		{Type: stick.EventClaim, From: "ana", Reason: "open_claim"},
		{Type: stick.EventRelease, From: "ana", Handoff: h},
		{Type: stick.EventPass, From: "bo", To: "ana", Handoff: &stick.Handoff{Status: "s", NextAction: "n"}},
		{Type: stick.EventTakeover, From: "bo", To: "ana", Reason: "the holder is gone"},
		{Type: stick.EventDoc, From: "bo", Text: "appended"},
		{Type: stick.EventPolicy, From: "bo"},
		{Type: stick.EventReorder, From: "bo"},
		{Type: stick.EventLeave, From: "bo"},
		{Type: stick.EventClose, From: "ana", Reason: "done", Text: "Shipped."},
		{Type: stick.EventClose, Reason: "abandoned: nobody called"},
	}
	inRoomA(t, st, func(tx stick.Tx) error {
		for i, e := range events {
			e.RoomID = "room_a"
			e, err := tx.AppendEvent(e)
			events[i] = e
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err := st.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	type row struct{ body, typ, from string }
	rows := map[int64]row{}
	err = sqlitex.ExecuteTransient(rawConn(t, st.path), "SELECT rowid, body, type, coalesce(from_agent_id, '') FROM search_index WHERE rowid > 0",
		&sqlitex.ExecOptions{ResultFunc: func(s *sqlite.Stmt) error {
			rows[s.ColumnInt64(0)] = row{s.ColumnText(1), s.ColumnText(2), s.ColumnText(3)}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range events {
		text, ok := stick.SearchText(e)
		got, indexed := rows[e.Seq]
		switch {
		case ok != indexed:
			t.Errorf("event %d (%s): indexed %v, searched %v", e.Seq, e.Type, indexed, ok)
		case ok && got != (row{text, stick.HitType(e), e.From}):
			t.Errorf("event %d (%s): indexed %+v, want %q as %s by %q", e.Seq, e.Type, got, text, stick.HitType(e), e.From)
		}
		if ok {
			want++
		}
	}
	if len(rows) != want {
		t.Errorf("%d event rows indexed, want %d", len(rows), want)
	}
}

// TestCatchUpSearch: CatchUpSearch indexes what was committed and not yet
// indexed, so a read transaction after it finds every event; with nothing
// to index it reads only, and so works while another process holds the
// write lock.
func TestCatchUpSearch(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for i := range 3 {
		inRoomA(t, st, func(tx stick.Tx) error {
			_, err := tx.AppendEvent(stick.Event{RoomID: "room_a", Type: stick.EventNote, Text: "the bilby " + strconv.Itoa(i)})
			return err
		})
	}
	viewHits := func() int {
		t.Helper()
		var n int
		err := st.View(ctx, func(tx stick.Tx) error {
			hits, err := tx.Search(word("bilby"), stick.SearchQuery{Limit: 10})
			n = len(hits)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := viewHits(); n != 0 {
		t.Fatalf("the events are not indexed yet, but a read found %d", n)
	}
	c := rawConn(t, st.path)
	lock := func() func() {
		t.Helper()
		if err := sqlitex.ExecuteTransient(c, "BEGIN IMMEDIATE", nil); err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := sqlitex.ExecuteTransient(c, "ROLLBACK", nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	unlock := lock()
	if err := st.CatchUpSearch(ctx); stick.ErrorCode(err) != stick.CodeDBBusy {
		t.Fatalf("indexing needs the write lock: want db_busy, got %v", err)
	}
	unlock()
	if err := st.CatchUpSearch(ctx); err != nil {
		t.Fatal(err)
	}
	if n := viewHits(); n != 3 {
		t.Fatalf("after the catch-up a read finds %d of 3", n)
	}
	defer lock()()
	if err := st.CatchUpSearch(ctx); err != nil {
		t.Fatalf("with nothing to index, catching up must not need the write lock: %v", err)
	}
}

// TestCatchUpSearchLeavesBuilding: a backlog longer than a search catches
// up is left to the background, which CatchUpSearch starts; the search
// says the index is being built until it is.
func TestCatchUpSearchLeavesBuilding(t *testing.T) {
	catchUp := searchCatchUp
	searchCatchUp = 2
	t.Cleanup(func() { searchCatchUp = catchUp })
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	inRoomA(t, st, func(tx stick.Tx) error {
		for i := range 5 {
			if _, err := tx.AppendEvent(stick.Event{RoomID: "room_a", Type: stick.EventNote, Text: "the quoll " + strconv.Itoa(i)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err := st.CatchUpSearch(ctx); err != nil {
		t.Fatal(err)
	}
	waitFill(st)
	var hits []stick.SearchHit
	err = st.View(ctx, func(tx stick.Tx) (err error) {
		hits, err = tx.Search(word("quoll"), stick.SearchQuery{Limit: 10})
		return err
	})
	if err != nil || len(hits) != 5 {
		t.Fatalf("the background fill started by the catch-up indexes all 5: %d hits, %v", len(hits), err)
	}
}

// TestCatchUpSearchWithoutFTS5: without FTS5 there is nothing to catch up,
// and the search itself says it is unavailable.
func TestCatchUpSearchWithoutFTS5(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{noFTS: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	inRoomA(t, st, func(tx stick.Tx) error {
		_, err := tx.AppendEvent(stick.Event{RoomID: "room_a", Type: stick.EventNote, Text: "x"})
		return err
	})
	b := OpenInBackground(func() (*Store, error) { return st, nil })
	if err := b.CatchUpSearch(context.Background()); err != nil {
		t.Fatalf("catching up without FTS5: %v", err)
	}
	err = b.View(context.Background(), func(tx stick.Tx) error {
		_, err := tx.Search(word("x"), stick.SearchQuery{Limit: 1})
		return err
	})
	if stick.ErrorCode(err) != stick.CodeSearchUnavailable {
		t.Fatalf("want search_unavailable, got %v", err)
	}
}

// TestSearchRefusesAnInvalidMatch: a match that fails Validate is
// invalid_argument, not an FTS5 syntax error.
func TestSearchRefusesAnInvalidMatch(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, m := range []stick.SearchMatch{nil, {{}}, {{{Words: "--"}}}} {
		err := st.View(context.Background(), func(tx stick.Tx) error {
			_, err := tx.Search(m, stick.SearchQuery{Limit: 1})
			return err
		})
		if se := stick.AsError(err); se.Code != stick.CodeInvalidArgument || se.Details["field"] != "query" {
			t.Errorf("%#v: want invalid_argument on query, got %v", m, err)
		}
	}
}
