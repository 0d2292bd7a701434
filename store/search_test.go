package store

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite/sqlitex"
)

// TestSearchIndexBuiltOnMigration: a database from before the index gets
// it at its first open, with every searchable event already in it.
func TestSearchIndexBuiltOnMigration(t *testing.T) {
	path := writeVersion1(t, `
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at) VALUES ('room_c', '/w', 'idle', 8, 9);
INSERT INTO events (event_id, room_id, turn_id, event_type, from_agent_id, text, created_at) VALUES ('evt_1', 'room_c', 0, 'note', 'ana', 'the quokka escaped', 2);
INSERT INTO events (event_id, room_id, turn_id, event_type, from_agent_id, handoff_json, created_at)
	VALUES ('evt_2', 'room_c', 1, 'release', 'bo', '{"status":"caught the wombat","next_action":"feed it","open_questions":["where is the quokka?"]}', 3);
INSERT INTO events (event_id, room_id, turn_id, event_type, from_agent_id, created_at) VALUES ('evt_3', 'room_c', 1, 'claim', 'quokka', 4);
`)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := searchSeqs(t, st, word("quokka")); len(got) != 2 || got[0]+got[1] != 3 {
		t.Fatalf("quokka must match the note and the handoff's question only: %v", got)
	}
	if got := searchSeqs(t, st, word("wombat")); len(got) != 1 || got[0] != 2 {
		t.Fatalf("a handoff's status is indexed: %v", got)
	}
}

// TestSearchWithoutFTS5: a SQLite without FTS5 still opens and writes the
// file, search says it is unavailable, and the next open with FTS5
// rebuilds the index with what was written meanwhile.
func TestSearchWithoutFTS5(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	note := func(st *Store, text string) {
		t.Helper()
		inRoomA(t, st, func(tx stick.Tx) error {
			_, err := tx.AppendEvent(stick.Event{RoomID: "room_a", Type: stick.EventNote, Text: text})
			return err
		})
	}
	st, err := OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	note(st, "first aardvark")
	st.Close()

	plain, err := OpenDir(dir, Options{noFTS: true})
	if err != nil {
		t.Fatalf("a SQLite without FTS5 must open the file: %v", err)
	}
	note(plain, "second aardvark")
	err = plain.View(ctx, func(tx stick.Tx) error {
		_, err := tx.Search(word("aardvark"), stick.SearchQuery{Limit: 10})
		return err
	})
	if se := stick.AsError(err); se.Code != stick.CodeSearchUnavailable || se.Hint == "" {
		t.Fatalf("want search_unavailable with a hint, got %v", err)
	}
	plain.Close()
	r, err := OpenReader(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := r.SearchIndex(ctx)
	r.Close()
	if err != nil || ix.State != "stale" {
		t.Fatalf("the index must be marked stale: %+v %v", ix, err)
	}

	st, err = OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := searchSeqs(t, st, word("aardvark")); len(got) != 2 {
		t.Fatalf("the rebuilt index must hold both notes: %v", got)
	}
	note(st, "third aardvark")
	if got := searchSeqs(t, st, word("aardvark")); len(got) != 3 {
		t.Fatalf("the rebuilt index must follow new writes: %v", got)
	}
}

// TestDocVersionsAppendOnly: history rows cannot change.
func TestDocVersionsAppendOnly(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	saveDoc(t, st, 1, "x")
	c := rawConn(t, st.path)
	for _, q := range []string{"UPDATE doc_versions SET content = 'y'", "DELETE FROM doc_versions"} {
		if err := sqlitex.ExecuteTransient(c, q, nil); err == nil {
			t.Fatalf("%s succeeded", q)
		}
	}
}

func searchSeqs(t *testing.T, st *Store, match stick.SearchMatch) []int64 {
	t.Helper()
	var out []int64
	err := st.Update(context.Background(), func(tx stick.Tx) error {
		hits, err := tx.Search(match, stick.SearchQuery{Limit: 50})
		for _, h := range hits {
			out = append(out, h.EventSeq)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDocChunks: a document is indexed by paragraph, and a new version
// re-indexes only the paragraphs that changed.
func TestDocChunks(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	save := func(v int64, content string) { saveDoc(t, st, v, content) }
	save(1, "# Plan\n\nFirst the parser.\n\n## Risks\n\nThe lexer.\nThe cache.\n\nSame.\n\nSame.\n")
	c := rawConn(t, st.path)
	ids := func() string {
		return query(t, c, "SELECT group_concat(chunk_id || ':' || section || ':' || replace(content, char(10), '|'), ',') FROM (SELECT * FROM doc_chunks ORDER BY chunk_id)")
	}
	if got := ids(); got != "1:Plan:# Plan,2:Plan:First the parser.,3:Risks:## Risks,4:Risks:The lexer.|The cache.,5:Risks:Same.,6:Risks:Same." {
		t.Fatalf("chunks: %s", got)
	}
	save(2, "# Plan\n\nFirst the parser.\n\n## Risks\n\nThe lexer.\nThe cache.\nThe clock.\n\nSame.\n")
	if got := ids(); got != "1:Plan:# Plan,2:Plan:First the parser.,3:Risks:## Risks,5:Risks:Same.,7:Risks:The lexer.|The cache.|The clock." {
		t.Fatalf("only the changed paragraph is replaced, one duplicate dropped: %s", got)
	}
	var hits []stick.SearchHit
	err = st.View(ctx, func(tx stick.Tx) (err error) {
		hits, err = tx.Search(word("clock"), stick.SearchQuery{Limit: 5})
		return err
	})
	if err != nil || len(hits) != 1 || hits[0].Section != "Risks" || hits[0].DocVersion != 2 || hits[0].From != "ana" {
		t.Fatalf("a document hit names its section and version: %+v %v", hits, err)
	}
	if got := searchSeqs(t, st, word("cache")); len(got) != 1 {
		t.Fatalf("the replaced paragraph must leave the index: %v", got)
	}
}

// TestSearchIndexBuiltInBatches: a long log is indexed after the open, in
// short transactions, while search says the index is being built; a fill
// cut short resumes at the next open.
func TestSearchIndexBuiltInBatches(t *testing.T) {
	inline, batch, catchUp := inlineFill, fillBatch, searchCatchUp
	inlineFill, fillBatch, searchCatchUp = 2, 3, 3
	t.Cleanup(func() { inlineFill, fillBatch, searchCatchUp = inline, batch, catchUp })
	rows := "INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at) VALUES ('room_c', '/w', 'idle', 8, 9);\n"
	for i := range 10 {
		rows += "INSERT INTO events (event_id, room_id, turn_id, event_type, text, created_at) VALUES ('evt_" + strconv.Itoa(i) + "', 'room_c', 0, 'note', 'the numbat " + strconv.Itoa(i) + "', 1);\n"
	}
	path := writeVersion1(t, rows)
	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.indexing {
		t.Fatal("10 events over an inline limit of 2 must be indexed after the open")
	}
	waitFill(st)
	if got := searchSeqs(t, st, word("numbat")); len(got) != 10 {
		t.Fatalf("every event indexed: %v", got)
	}
	st.Close()

	// A fill that stopped half way: search says so, and the next open finishes it.
	c := rawConn(t, path)
	for _, q := range []string{
		"DELETE FROM search_index WHERE rowid > 4",
		"UPDATE meta SET value = '4' WHERE key = 'search_indexed_through'",
	} {
		if err := sqlitex.ExecuteTransient(c, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	r, err := OpenReader(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	err = r.View(context.Background(), func(tx stick.Tx) error {
		_, err := tx.Search(word("numbat"), stick.SearchQuery{Limit: 5})
		return err
	})
	r.Close()
	if se := stick.AsError(err); se.Code != stick.CodeSearchUnavailable || se.Message != "the search index is being built: 40% of the log indexed" {
		t.Fatalf("want search_unavailable while building, got %v", err)
	}
	st, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	waitFill(st)
	if got := searchSeqs(t, st, word("numbat")); len(got) != 10 {
		t.Fatalf("the resumed fill indexes the rest: %v", got)
	}
}

// TestDocVersionsAsDeltas: every version reads back exactly, whatever the
// edits (appends, inserts, cuts, rewrites, multi-byte characters), and
// most are stored as small deltas.
func TestDocVersionsAsDeltas(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"é", "日本", "a", "\n", "## S\n", "- item\n", "🙂", " words "}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		return b.String()
	}
	cut := func(s string) int { // a byte offset, possibly inside a character
		return rnd.IntN(len(s) + 1)
	}
	var want []string
	content := text(400)
	for v := int64(1); v <= 100; v++ {
		switch {
		case v == 1:
		case v%10 == 0:
			content = text(300) // a rewrite
		case v%3 == 0:
			i := cut(content)
			j := min(len(content), i+rnd.IntN(40))
			content = strings.ToValidUTF8(content[:i]+content[j:], "") // a cut
		default:
			i := cut(content)
			content = strings.ToValidUTF8(content[:i]+text(5)+content[i:], "") // an insert
		}
		want = append(want, content)
		saveDoc(t, st, v, content)
	}
	err = st.View(ctx, func(tx stick.Tx) error {
		for i, w := range want {
			d, ok, err := tx.Doc("room_a", int64(i+1))
			if err != nil || !ok || d.Content != w || d.Size != len(w) {
				t.Fatalf("version %d: ok %v, err %v, %d bytes, want %d", i+1, ok, err, len(d.Content), len(w))
			}
		}
		cur, ok, err := tx.Doc("room_a", 0)
		if err != nil || !ok || cur.Version != 100 || cur.Content != want[99] {
			t.Fatalf("current: %+v %v", cur.DocVersion, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := rawConn(t, st.path)
	if v, _ := strconv.Atoi(query(t, c, "SELECT count(*) FROM doc_versions WHERE delta = 1")); v < 60 {
		t.Fatalf("most versions must be deltas: %d of 100", v)
	}
}

// TestEventsIndexedInBatches: appending events indexes nothing until one
// crosses a multiple of indexEvery, whose transaction indexes the backlog;
// a search in a write transaction indexes the rest first, one in a read
// transaction searches what is indexed.
func TestEventsIndexedInBatches(t *testing.T) {
	every := indexEvery
	indexEvery = 4
	t.Cleanup(func() { indexEvery = every })
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	c := rawConn(t, st.path)
	indexed := func() string { return query(t, c, "SELECT value FROM meta WHERE key = 'search_indexed_through'") }
	for i := 1; i <= 6; i++ {
		inRoomA(t, st, func(tx stick.Tx) error {
			_, err := tx.AppendEvent(stick.Event{RoomID: "room_a", Type: stick.EventNote, Text: "the echidna " + strconv.Itoa(i)})
			return err
		})
		if want := map[bool]string{true: "4", false: "0"}[i >= 4]; indexed() != want {
			t.Fatalf("after event %d: indexed through %s, want %s", i, indexed(), want)
		}
	}
	var viewHits int
	err = st.View(ctx, func(tx stick.Tx) error {
		hits, err := tx.Search(word("echidna"), stick.SearchQuery{Limit: 10})
		viewHits = len(hits)
		return err
	})
	if err != nil || viewHits != 4 {
		t.Fatalf("a read transaction searches what is indexed: %d hits, %v", viewHits, err)
	}
	if got := searchSeqs(t, st, word("echidna")); len(got) != 6 || indexed() != "6" {
		t.Fatalf("a search in a write transaction indexes the rest first: %v, indexed through %s", got, indexed())
	}
}

// waitFill waits for the store's background indexing, if any, to end.
func waitFill(s *Store) {
	s.fill.mu.Lock()
	done := s.fill.done
	s.fill.mu.Unlock()
	if done != nil {
		<-done
	}
}

// inRoomA runs fn in a write transaction of st, after creating the room
// room_a at /w if it is not there yet.
func inRoomA(t *testing.T, st *Store, fn func(stick.Tx) error) {
	t.Helper()
	err := st.Update(context.Background(), func(tx stick.Tx) error {
		if _, ok, err := tx.Room("room_a"); err != nil {
			return err
		} else if !ok {
			if err := tx.CreateRoom(stick.Room{ID: "room_a", Path: "/w", State: stick.StateIdle}); err != nil {
				return err
			}
		}
		return fn(tx)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// saveDoc saves version v of room_a's document, written by ana.
func saveDoc(t *testing.T, st *Store, v int64, content string) {
	t.Helper()
	inRoomA(t, st, func(tx stick.Tx) error {
		return tx.SaveDoc(stick.Document{DocVersion: stick.DocVersion{RoomID: "room_a", Version: v, Author: "ana", Op: stick.DocUpdate}, Content: content})
	})
}

// word is the search for one whole word.
func word(w string) stick.SearchMatch { return stick.SearchMatch{{{Words: w}}} }

// prefix is the search for the words that begin with p.
func prefix(p string) stick.SearchMatch { return stick.SearchMatch{{{Words: p, Prefix: true}}} }
