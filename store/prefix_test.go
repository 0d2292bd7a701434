package store

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// TestPrefixMatchesWordsAsWritten: a prefix finds the words that begin
// with it as written, also past their stem (migration* and migrati* find
// "migrations", whose stem is "migrat"), and not a word it does not begin
// that shares the stem; a whole word still finds every word of its stem.
// Prefixes and whole words combine, with AND and OR, and the snippet
// highlights both.
func TestPrefixMatchesWordsAsWritten(t *testing.T) {
	st, err := OpenDir(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, text := range []string{"the migrations failed", "we migrate now", "a café opened"} {
		inRoomA(t, st, func(tx stick.Tx) error {
			_, err := tx.AppendEvent(stick.Event{RoomID: "room_a", Type: stick.EventNote, Text: text})
			return err
		})
	}
	saveDoc(t, st, 1, "# Plan\n\nThe Migrationsplan is late.\n")
	for _, c := range []struct {
		m    stick.SearchMatch
		want []int64 // event_seq, 0 for the document
	}{
		{prefix("migrat"), []int64{0, 1, 2}},
		{prefix("migration"), []int64{0, 1}},
		{prefix("migrati"), []int64{0, 1}},
		{prefix("MIGRATIONS"), []int64{0, 1}},
		{prefix("migrationsp"), []int64{0}},
		{prefix("cafe"), []int64{3}},
		{word("migration"), []int64{1, 2}},
		{stick.SearchMatch{{{Words: "failed"}}, {{Words: "migration", Prefix: true}}}, []int64{1}},
		{stick.SearchMatch{{{Words: "migrate"}, {Words: "caf", Prefix: true}}}, []int64{1, 2, 3}},
		{stick.SearchMatch{{{Words: "failed"}}, {{Words: "migrate"}, {Words: "caf", Prefix: true}}}, []int64{1}},
		{stick.SearchMatch{{{Words: "the migrations", Prefix: true}}}, []int64{0, 1}},
		{stick.SearchMatch{{{Words: "the migration", Prefix: true}}, {{Words: "now"}, {Words: "fail"}}}, []int64{1}},
	} {
		got := searchSeqs(t, st, c.m)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: found %v, want %v", c.m, got, c.want)
		}
	}
	for _, c := range []struct {
		m       stick.SearchMatch
		snippet string
	}{
		{prefix("migration"), "the **migrations** failed"},
		{stick.SearchMatch{{{Words: "failed"}}, {{Words: "migration", Prefix: true}}}, "the **migrations** **failed**"},
		{word("migrations"), "the **migrations** failed"},
	} {
		var hits []stick.SearchHit
		err := st.View(context.Background(), func(tx stick.Tx) (err error) {
			hits, err = tx.Search(c.m, stick.SearchQuery{Limit: 5, Type: "note"})
			return err
		})
		if err != nil || len(hits) == 0 || hits[0].Snippet != c.snippet {
			t.Errorf("%+v: hits %+v, %v; want the snippet %q first", c.m, hits, err, c.snippet)
		}
	}
	// Each hit of a mixed query has its matches highlighted, whichever
	// table it matched in: "we migrate now" only by the stem of migrations.
	var mixed []stick.SearchHit
	err = st.View(context.Background(), func(tx stick.Tx) (err error) {
		mixed, err = tx.Search(stick.SearchMatch{{{Words: "migrations"}, {Words: "caf", Prefix: true}}}, stick.SearchQuery{Limit: 5, Type: "note"})
		return err
	})
	var snippets []string
	for _, h := range mixed {
		snippets = append(snippets, h.Snippet)
	}
	slices.Sort(snippets)
	if err != nil || !slices.Equal(snippets, []string{"a **café** opened", "the **migrations** failed", "we **migrate** now"}) {
		t.Errorf("snippets of a mixed query: %q %v", snippets, err)
	}
	// A replaced paragraph leaves both tables.
	saveDoc(t, st, 2, "# Plan\n\nOn time.\n")
	if got := searchSeqs(t, st, prefix("migrationsp")); len(got) != 0 {
		t.Fatalf("the replaced paragraph is still found by a prefix: %v", got)
	}
	if v := query(t, rawConn(t, st.path), "INSERT INTO search_words (search_words, rank) VALUES ('integrity-check', 0) RETURNING 'ok'"); v != "ok" {
		t.Fatalf("integrity-check of search_words: %s", v)
	}
}

// TestPrefixIndexMigrated: a database whose index is from before the
// unstemmed table (schema version 5) gets it at its first open, with what
// was indexed before, and keeps it up to date.
func TestPrefixIndexMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.sqlite")
	c, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		t.Fatal(err)
	}
	script := "PRAGMA application_id = " + strconv.Itoa(applicationID) + ";\n" +
		"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;\n"
	for _, m := range migrations[:5] {
		script += m
	}
	// The index as schema version 5 made it.
	script += `
INSERT INTO meta VALUES ('schema_version', '5'), ('search_index', 'ready'), ('search_indexed_through', '1');
CREATE VIRTUAL TABLE search_index USING fts5 (body, room_id UNINDEXED, type UNINDEXED, from_agent_id UNINDEXED,
	tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TRIGGER doc_chunks_search_insert AFTER INSERT ON doc_chunks BEGIN
	INSERT INTO search_index (rowid, body, room_id, type, from_agent_id) VALUES (-new.chunk_id, new.content, new.room_id, 'document', new.author);
END;
CREATE TRIGGER doc_chunks_search_delete AFTER DELETE ON doc_chunks BEGIN
	DELETE FROM search_index WHERE rowid = -old.chunk_id;
END;
INSERT INTO rooms (room_id, canonical_path, state, created_at, updated_at) VALUES ('room_a', '/w', 'idle', 8, 9);
INSERT INTO events (event_id, room_id, turn_id, event_type, from_agent_id, text, created_at) VALUES ('evt_1', 'room_a', 0, 'note', 'ana', 'the migrations failed', 2);
INSERT INTO search_index (rowid, body, room_id, type, from_agent_id) VALUES (1, 'the migrations failed', 'room_a', 'note', 'ana');
`
	if err := sqlitex.ExecuteScript(c, script, nil); err != nil {
		t.Fatal(err)
	}
	c.Close()

	st, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := searchSeqs(t, st, prefix("migration")); !slices.Equal(got, []int64{1}) {
		t.Fatalf("migration* after the migration: %v", got)
	}
	saveDoc(t, st, 1, "# Plan\n\nMigrationsplan.\n")
	inRoomA(t, st, func(tx stick.Tx) error {
		_, err := tx.AppendEvent(stick.Event{RoomID: "room_a", Type: stick.EventNote, Text: "migrations done"})
		return err
	})
	got := searchSeqs(t, st, prefix("migrations"))
	if slices.Sort(got); !slices.Equal(got, []int64{0, 1, 2}) {
		t.Fatalf("migrations* finds the old note, the new one and the paragraph: %v", got)
	}
	if v := query(t, rawConn(t, path), "SELECT value FROM meta WHERE key = 'schema_version'"); v != strconv.Itoa(SchemaVersion) {
		t.Fatalf("schema_version %s", v)
	}
}
