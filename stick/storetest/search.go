package storetest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stickhq/stick/stick"
)

var searchCases = []testCase{
	{"Unavailable", testSearchUnavailable},
	{"WhatIsSearched", testSearchWhat},
	{"WholeWordsAreStemmed", testSearchStemming},
	{"PrefixesAsWritten", testSearchPrefixes},
	{"Phrases", testSearchPhrases},
	{"CaseDiacriticsAndPunctuation", testSearchFolding},
	{"ClausesAndOR", testSearchClauses},
	{"Filters", testSearchFilters},
	{"BestFirstAndLimit", testSearchRanking},
	{"Snippets", testSearchSnippets},
	{"InvalidMatch", testSearchInvalid},
	{"SeesEveryCommitAfterCatchUp", testSearchCatchUp},
}

// needSearch ends a search test of a store without search, which
// Harness.NoSearch declares; only Unavailable runs for it.
func needSearch(e *env) {
	if e.h.NoSearch {
		e.t.Skip("the store has no full-text search (Harness.NoSearch); only search_unavailable is checked")
	}
}

// search parses query, asks a SearchIndexer to catch up, and runs the
// search with q's filters in a View of s, as Service.Search does. Hits
// must come best first, at most q.Limit of them.
func (e *env) search(s stick.Store, query string, q stick.SearchQuery) ([]stick.SearchHit, error) {
	e.t.Helper()
	m, err := stick.ParseQuery(query)
	if err != nil {
		e.t.Fatalf("parse %q: %v", query, err)
	}
	q.Query = query
	if q.Limit == 0 {
		q.Limit = stick.DefaultSearchLimit
	}
	if ix, ok := s.(stick.SearchIndexer); ok {
		if err := ix.CatchUpSearch(e.ctx); err != nil {
			return nil, err
		}
	}
	var hits []stick.SearchHit
	err = s.View(e.ctx, func(tx stick.Tx) error {
		var err error
		hits, err = tx.Search(m, q)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(hits) > q.Limit {
		e.t.Fatalf("search %q with limit %d gave %d hits", query, q.Limit, len(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			e.t.Fatalf("search %q: hit %d scores %v, more than hit %d before it (%v); hits come best first, higher scores better",
				query, i+1, hits[i].Score, i, hits[i-1].Score)
		}
	}
	return hits, nil
}

// mustSearch is search failing the test on an error.
func (e *env) mustSearch(query string, q stick.SearchQuery) []stick.SearchHit {
	e.t.Helper()
	hits, err := e.search(e.s, query, q)
	if err != nil {
		e.t.Fatalf("search %q %+v: %v", query, q, err)
	}
	return hits
}

// A store without search answers search_unavailable; one with search
// finds a note.
func testSearchUnavailable(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"))
	ev := appendEvents(e, note("room_1", "a", "the wombat escaped", 1))[0]
	hits, err := e.search(e.s, "wombat", stick.SearchQuery{})
	if e.h.NoSearch {
		if stick.ErrorCode(err) != stick.CodeSearchUnavailable {
			e.t.Fatalf("a store without search (Harness.NoSearch): got %+v %v; want search_unavailable", hits, err)
		}
		return
	}
	if err != nil || len(hits) != 1 || hits[0].EventSeq != ev.Seq {
		e.t.Fatalf("search for a note's word: %+v %v", hits, err)
	}
}

// corpus is the searched fixture: its events by label, and a label for
// each hit.
type corpus struct {
	events map[string]stick.Event
	docs   map[string]stick.Document // by room
}

// label names the entry a hit is on: an event's label, or doc:ROOM:SECTION.
func (c *corpus) label(h stick.SearchHit) string {
	if h.EventSeq != 0 {
		for l, ev := range c.events {
			if ev.Seq == h.EventSeq {
				return l
			}
		}
		return fmt.Sprintf("event %d", h.EventSeq)
	}
	return "doc:" + h.RoomID + ":" + h.Section
}

// labels returns the sorted labels of hits.
func (c *corpus) labels(hits []stick.SearchHit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, c.label(h))
	}
	slices.Sort(out)
	return out
}

// newCorpus writes the fixture the search tests share: three rooms (one
// closed), events of every kind, searched or not, and two documents, one
// of which was rewritten.
func newCorpus(e *env) *corpus {
	e.t.Helper()
	closed := newRoom("room_3", "/w/three")
	closed.State, closed.ClosedAt = stick.StateClosed, at(90)
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"), closed)
	withType := func(ev stick.Event, t stick.NoteType) stick.Event {
		ev.MessageType = t
		return ev
	}
	specs := []struct {
		label string
		ev    stick.Event
	}{
		{"migration", note("room_1", "a", "The schema migration is flaky", 1)},
		{"migrations", withType(note("room_2", "c", "Why do migrations run twice?", 2), stick.NoteQuestion)},
		{"migrate", note("room_1", "b", "We migrate on start", 3)},
		{"migrationsplan", note("room_1", "a", "see migrationsplan for details", 4)},
		{"parsers", withType(note("room_1", "b", "Parsers are generated", 5), stick.NoteDecision)},
		{"recovery", note("room_2", "c", "error recovery failed after the restart", 6)},
		{"reversed", note("room_1", "a", "recovery of the error log", 7)},
		{"cafe", note("room_2", "c", "Meet at the Café **now**", 8)},
		{"foobar", note("room_1", "a", "the foo-bar flag", 9)},
		{"handoff", stick.Event{RoomID: "room_1", Type: stick.EventRelease, From: "a", To: "b", CreatedAt: at(10),
			Handoff: &stick.Handoff{Status: "lexer half way", NextAction: "finish the tokenizer",
				OpenQuestions: []string{"keep the okapi tokens?"}}}},
		{"pass", stick.Event{RoomID: "room_1", Type: stick.EventPass, From: "b", To: "a", CreatedAt: at(11),
			Handoff: &stick.Handoff{Status: "reviewed", NextAction: "merge it",
				Artifacts: []stick.Artifact{{Path: "giraffe.go", Role: stick.RoleEdit, Note: "giraffe"}}, DoNot: []string{"giraffe"}}}},
		{"close", stick.Event{RoomID: "room_3", Type: stick.EventClose, From: "a", Reason: "wombat finished",
			Text: "conclusion: the project shipped", CreatedAt: at(12)}},
		{"join", stick.Event{RoomID: "room_1", Type: stick.EventJoin, From: "d", Text: "zebra", CreatedAt: at(13)}},
		{"claim", stick.Event{RoomID: "room_1", Type: stick.EventClaim, From: "a", Reason: "zebra", CreatedAt: at(14)}},
		{"doc event", stick.Event{RoomID: "room_1", Type: stick.EventDoc, From: "a", Text: "zebra appended", CreatedAt: at(15)}},
	}
	c := &corpus{events: map[string]stick.Event{}, docs: map[string]stick.Document{}}
	e.update(e.s, func(tx stick.Tx) error {
		for _, s := range specs {
			ev, err := tx.AppendEvent(s.ev)
			if err != nil {
				return err
			}
			c.events[s.label] = ev
		}
		return nil
	})
	docs := []stick.Document{
		{DocVersion: stick.DocVersion{RoomID: "room_1", Version: 1, Author: "a", Op: stick.DocUpdate, CreatedAt: at(20)},
			Content: "# Plan\n\nThe quokka roadmap.\n\n## Risks\n\nA llama may escape.\n"},
		{DocVersion: stick.DocVersion{RoomID: "room_1", Version: 2, Author: "b", Op: stick.DocUpdate, CreatedAt: at(21)},
			Content: "# Plan\n\nThe narwhal roadmap.\n\n## Risks\n\nA llama may escape.\n\nAn alpaca too.\n"},
		{DocVersion: stick.DocVersion{RoomID: "room_2", Version: 1, Author: "c", Op: stick.DocUpdate, CreatedAt: at(22)},
			Content: "# Notes\n\nllama care.\n"},
	}
	for _, d := range docs {
		d.Size = len(d.Content)
		e.update(e.s, func(tx stick.Tx) error { return tx.SaveDoc(d) })
		c.docs[d.RoomID] = d
	}
	return c
}

// wantLabels fails the test unless a search finds exactly the entries
// labelled want.
func (c *corpus) wantLabels(e *env, query string, q stick.SearchQuery, want ...string) []stick.SearchHit {
	e.t.Helper()
	hits := e.mustSearch(query, q)
	slices.Sort(want)
	if got := c.labels(hits); !slices.Equal(got, want) {
		e.t.Errorf("search %q (room %q, type %q, from %q) found %q; want %q", query, q.RoomID, q.Type, q.From, got, want)
	}
	return hits
}

// The text SearchText gives of notes, handoffs and closes is found, with
// the hit's kind and author, in closed rooms too, and so are the
// paragraphs of each room's current document with their section and the
// author of the version that wrote them; joins, claims, doc events,
// artifacts, do-nots and a document's earlier versions are not.
func testSearchWhat(e *env) {
	needSearch(e)
	c := newCorpus(e)
	hit := func(query, label string) stick.SearchHit {
		e.t.Helper()
		hits := c.wantLabels(e, query, stick.SearchQuery{}, label)
		if len(hits) != 1 {
			e.t.FailNow()
		}
		return hits[0]
	}
	for _, tc := range []struct {
		query, label, typ, room, path, from string
	}{
		{"flaky", "migration", "note", "room_1", "/w/one", "a"},
		{"twice", "migrations", "question", "room_2", "/w/two", "c"},
		{"generated", "parsers", "decision", "room_1", "/w/one", "b"},
		{"lexer", "handoff", "release", "room_1", "/w/one", "a"},
		{"tokenizer", "handoff", "release", "room_1", "/w/one", "a"},
		{"okapi", "handoff", "release", "room_1", "/w/one", "a"},
		{"reviewed", "pass", "pass", "room_1", "/w/one", "b"},
		{"merge", "pass", "pass", "room_1", "/w/one", "b"},
		{"wombat", "close", "close", "room_3", "/w/three", "a"},
		{"shipped", "close", "close", "room_3", "/w/three", "a"},
	} {
		h := hit(tc.query, tc.label)
		ev := c.events[tc.label]
		want := stick.SearchHit{RoomID: tc.room, RoomPath: tc.path, Type: tc.typ, EventSeq: ev.Seq, From: tc.from, CreatedAt: ev.CreatedAt}
		checkHit(e, tc.query, h, want)
	}
	for _, tc := range []struct {
		query, room, path, section, from string
		version                          int64
	}{
		{"narwhal", "room_1", "/w/one", "Plan", "b", 2},
		{"alpaca", "room_1", "/w/one", "Risks", "b", 2},
		{"escape", "room_1", "/w/one", "Risks", "a", 2},
		{"care", "room_2", "/w/two", "Notes", "c", 1},
	} {
		h := hit(tc.query, "doc:"+tc.room+":"+tc.section)
		want := stick.SearchHit{RoomID: tc.room, RoomPath: tc.path, Type: stick.DocumentHit, DocVersion: tc.version,
			Section: tc.section, From: tc.from, CreatedAt: c.docs[tc.room].CreatedAt}
		checkHit(e, tc.query, h, want)
	}
	for _, q := range []string{"zebra", "appended", "giraffe", "quokka"} {
		c.wantLabels(e, q, stick.SearchQuery{})
	}
}

// checkHit compares a hit's fields, but its snippet and score, to want's.
func checkHit(e *env, query string, got, want stick.SearchHit) {
	e.t.Helper()
	want.Snippet, want.Score = got.Snippet, got.Score
	got.CreatedAt, want.CreatedAt = utc(got.CreatedAt), utc(want.CreatedAt)
	if got != want {
		e.t.Errorf("search %q:\n got  %+v\n want %+v", query, got, want)
	}
	if got.Snippet == "" {
		e.t.Errorf("search %q: a hit without a snippet: %+v", query, got)
	}
}

// A whole word finds the words with its stem, and only whole words. (How
// far a stemmer goes is the store's; the cases here are those every
// English stemmer agrees on.)
func testSearchStemming(e *env) {
	needSearch(e)
	c := newCorpus(e)
	for _, q := range []string{"migration", "migrations"} {
		c.wantSome(e, q, []string{"migration", "migrations"}, []string{"migrationsplan"})
	}
	c.wantLabels(e, "parser", stick.SearchQuery{}, "parsers")
	c.wantLabels(e, "parse", stick.SearchQuery{})
	c.wantLabels(e, "llamas", stick.SearchQuery{}, "doc:room_1:Risks", "doc:room_2:Notes")
}

// wantSome fails the test unless a search finds each entry of want and
// none of not.
func (c *corpus) wantSome(e *env, query string, want, not []string) {
	e.t.Helper()
	got := c.labels(e.mustSearch(query, stick.SearchQuery{}))
	for _, w := range want {
		if !slices.Contains(got, w) {
			e.t.Errorf("search %q found %q; want %q among them", query, got, w)
		}
	}
	for _, n := range not {
		if slices.Contains(got, n) {
			e.t.Errorf("search %q found %q; want no %q", query, got, n)
		}
	}
}

// A prefix finds the words that begin with it as written, unstemmed.
func testSearchPrefixes(e *env) {
	needSearch(e)
	c := newCorpus(e)
	c.wantLabels(e, "migration*", stick.SearchQuery{}, "migration", "migrations", "migrationsplan")
	c.wantLabels(e, "migrat*", stick.SearchQuery{}, "migration", "migrations", "migrationsplan", "migrate")
	c.wantLabels(e, "migrations*", stick.SearchQuery{}, "migrations", "migrationsplan")
	c.wantLabels(e, "pars*", stick.SearchQuery{}, "parsers")
	c.wantLabels(e, "tokeni*", stick.SearchQuery{}, "handoff")
	c.wantLabels(e, "narwh*", stick.SearchQuery{}, "doc:room_1:Plan")
	c.wantLabels(e, "quokk*", stick.SearchQuery{})
}

// A phrase finds its words adjacent and in order; its words are stemmed,
// and a prefix phrase ends in a prefix.
func testSearchPhrases(e *env) {
	needSearch(e)
	c := newCorpus(e)
	c.wantLabels(e, `"error recovery"`, stick.SearchQuery{}, "recovery")
	c.wantLabels(e, `"recovery error"`, stick.SearchQuery{})
	c.wantLabels(e, `"error recov"*`, stick.SearchQuery{}, "recovery")
	c.wantLabels(e, `"schema migrations"`, stick.SearchQuery{}, "migration")
	c.wantLabels(e, `"schema flaky"`, stick.SearchQuery{})
	c.wantLabels(e, `"may escape"`, stick.SearchQuery{}, "doc:room_1:Risks")
}

// Case and diacritics never matter, and punctuation inside a word splits
// it as the text's is split.
func testSearchFolding(e *env) {
	needSearch(e)
	c := newCorpus(e)
	c.wantLabels(e, "cafe", stick.SearchQuery{}, "cafe")
	c.wantLabels(e, "CAFÉ", stick.SearchQuery{}, "cafe")
	c.wantLabels(e, "FLAKY", stick.SearchQuery{}, "migration")
	c.wantLabels(e, "MIGRATIONSPL*", stick.SearchQuery{}, "migrationsplan")
	c.wantLabels(e, "foo-bar", stick.SearchQuery{}, "foobar")
	c.wantLabels(e, "bar-foo", stick.SearchQuery{})
}

// Every clause must match, and a clause matches when any of its terms
// does.
func testSearchClauses(e *env) {
	needSearch(e)
	c := newCorpus(e)
	c.wantLabels(e, "migration flaky", stick.SearchQuery{}, "migration")
	c.wantLabels(e, "migration twice", stick.SearchQuery{}, "migrations")
	c.wantLabels(e, "flaky OR twice", stick.SearchQuery{}, "migration", "migrations")
	c.wantLabels(e, "migration flaky OR twice", stick.SearchQuery{}, "migration", "migrations")
	c.wantLabels(e, "flaky OR migrate*", stick.SearchQuery{}, "migration", "migrate")
	c.wantLabels(e, "migrat* flaky OR start", stick.SearchQuery{}, "migration", "migrate")
	c.wantLabels(e, "llama OR narwhal escape", stick.SearchQuery{}, "doc:room_1:Risks")
	c.wantLabels(e, "wombat flaky", stick.SearchQuery{})
}

// RoomID, InRooms, Type and From each keep only the hits they name,
// alone or together; an empty, non-nil InRooms keeps none.
func testSearchFilters(e *env) {
	needSearch(e)
	c := newCorpus(e)
	c.wantLabels(e, "migrat*", stick.SearchQuery{RoomID: "room_1"}, "migration", "migrate", "migrationsplan")
	c.wantLabels(e, "migrat*", stick.SearchQuery{RoomID: "room_2"}, "migrations")
	c.wantLabels(e, "migrat*", stick.SearchQuery{RoomID: "room_3"})
	c.wantLabels(e, "migrat*", stick.SearchQuery{Type: "question"}, "migrations")
	c.wantLabels(e, "migrat*", stick.SearchQuery{Type: "note"}, "migration", "migrate", "migrationsplan")
	c.wantLabels(e, "migrat*", stick.SearchQuery{From: "a"}, "migration", "migrationsplan")
	c.wantLabels(e, "migrat*", stick.SearchQuery{From: "b", Type: "note", RoomID: "room_1"}, "migrate")
	c.wantLabels(e, "migrat*", stick.SearchQuery{From: "c", RoomID: "room_1"})
	c.wantLabels(e, "llama", stick.SearchQuery{RoomID: "room_2"}, "doc:room_2:Notes")
	c.wantLabels(e, "llama OR tokenizer", stick.SearchQuery{Type: stick.DocumentHit}, "doc:room_1:Risks", "doc:room_2:Notes")
	c.wantLabels(e, "llama OR tokenizer", stick.SearchQuery{Type: "release"}, "handoff")
	c.wantLabels(e, "llama OR tokenizer", stick.SearchQuery{Type: "note"})
	c.wantLabels(e, "escape OR alpaca", stick.SearchQuery{From: "b"}, "doc:room_1:Risks")
	c.wantLabels(e, "wombat", stick.SearchQuery{Type: "close", RoomID: "room_3"}, "close")
	c.wantLabels(e, "migrat* OR llama", stick.SearchQuery{InRooms: []string{"room_2"}}, "migrations", "doc:room_2:Notes")
	c.wantLabels(e, "migrat* OR llama OR wombat", stick.SearchQuery{InRooms: []string{"room_2", "room_3", "room_9"}},
		"migrations", "doc:room_2:Notes", "close")
	c.wantLabels(e, "migrat*", stick.SearchQuery{InRooms: []string{}})
	c.wantLabels(e, "migrat*", stick.SearchQuery{InRooms: []string{"room_1", "room_2"}, RoomID: "room_2"}, "migrations")
	c.wantLabels(e, "migrat*", stick.SearchQuery{InRooms: []string{"room_1"}, RoomID: "room_2"})
	c.wantLabels(e, "migrat*", stick.SearchQuery{InRooms: []string{"room_1", "room_2"}, From: "a"}, "migration", "migrationsplan")
}

// The entry that is all the query's word comes before one that mentions
// it once among many words; a limit keeps that many hits, the best.
func testSearchRanking(e *env) {
	needSearch(e)
	createRooms(e, newRoom("room_1", "/w/one"))
	long := strings.Repeat("nothing to see in this long and winding note about other things ", 6)
	evs := appendEvents(e,
		note("room_1", "a", long+"quasar "+long, 1),
		note("room_1", "a", "quasar quasar quasar", 2),
		note("room_1", "a", long+"one quasar here and one quasar there", 3),
	)
	hits := e.mustSearch("quasar", stick.SearchQuery{})
	if len(hits) != 3 || hits[0].EventSeq != evs[1].Seq {
		e.t.Fatalf("search for quasar: %v first of %d hits; want %d, the note that is nothing but quasar, first of 3",
			hitSeqs(hits), len(hits), evs[1].Seq)
	}
	if hits[0].Score <= hits[2].Score {
		e.t.Fatalf("the best hit scores %v, the worst %v: higher is better", hits[0].Score, hits[2].Score)
	}
	top := e.mustSearch("quasar", stick.SearchQuery{Limit: 1})
	if len(top) != 1 || top[0].EventSeq != evs[1].Seq {
		e.t.Fatalf("search for quasar, limit 1: %v; want [%d]", hitSeqs(top), evs[1].Seq)
	}
	if two := e.mustSearch("quasar", stick.SearchQuery{Limit: 2}); len(two) != 2 || two[0].EventSeq != evs[1].Seq {
		e.t.Fatalf("search for quasar, limit 2: %v; want 2 hits, %d first", hitSeqs(two), evs[1].Seq)
	}
}

func hitSeqs(hits []stick.SearchHit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.EventSeq
	}
	return out
}

// A snippet marks every match, the word as the text has it, whole for a
// prefix and for a stem, and escapes the text's own "**".
func testSearchSnippets(e *env) {
	needSearch(e)
	c := newCorpus(e)
	mark := func(w string) string { return stick.HighlightStart + w + stick.HighlightEnd }
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"cafe", []string{mark("Café"), `\*\*now\*\*`}},
		{"migrationspl*", []string{mark("migrationsplan")}},
		{"migration twice", []string{mark("migrations"), mark("twice")}},
		{"alpaca", []string{mark("alpaca")}},
	} {
		hits := e.mustSearch(tc.query, stick.SearchQuery{})
		if len(hits) != 1 {
			e.t.Fatalf("search %q: %d hits (%q); want 1", tc.query, len(hits), c.labels(hits))
		}
		for _, w := range tc.want {
			if !strings.Contains(hits[0].Snippet, w) {
				e.t.Errorf("search %q: snippet %q has no %q", tc.query, hits[0].Snippet, w)
			}
		}
	}
}

// A match that fails Validate is invalid_argument, not a store failure.
func testSearchInvalid(e *env) {
	needSearch(e)
	createRooms(e, newRoom("room_1", "/w/one"))
	for _, m := range []stick.SearchMatch{
		nil,
		{{}},
		{{{Words: "***"}}},
		{{{Words: "ok"}}, {{Words: "bad\x00word"}}},
	} {
		err := e.s.View(e.ctx, func(tx stick.Tx) error {
			_, err := tx.Search(m, stick.SearchQuery{Limit: 10})
			return err
		})
		if stick.ErrorCode(err) != stick.CodeInvalidArgument {
			e.t.Errorf("search for %#v: %v; want invalid_argument", m, err)
		}
	}
}

// After CatchUpSearch (for a store that indexes lazily), a search in a
// View finds every event and document committed before, by this handle
// or another, however many; a limit of MaxSearchLimit keeps that many.
func testSearchCatchUp(e *env) {
	needSearch(e)
	other := e.handle()
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	var evs []stick.Event
	batch := func(s stick.Store, room string, from, n int) {
		e.update(s, func(tx stick.Tx) error {
			for i := from; i < from+n; i++ {
				ev, err := tx.AppendEvent(note(room, "a", fmt.Sprintf("common entry%04d", i), i))
				if err != nil {
					return err
				}
				evs = append(evs, ev)
			}
			return nil
		})
	}
	findOne := func(s stick.Store, i int) {
		e.t.Helper()
		word := fmt.Sprintf("entry%04d", i)
		hits, err := e.search(s, word, stick.SearchQuery{})
		if err != nil || len(hits) != 1 || hits[0].EventSeq != evs[i].Seq {
			e.t.Fatalf("search for %s, committed before: %v %v; want [%d]", word, hitSeqs(hits), err, evs[i].Seq)
		}
	}
	batch(other, "room_1", 0, 300)
	findOne(e.s, 0)
	findOne(e.s, 299)
	for range 5 {
		n := len(evs)
		batch(other, "room_2", n, 1)
		findOne(e.s, n)
		batch(e.s, "room_1", n+1, 1)
		findOne(other, n+1)
	}
	n := len(evs)
	batch(e.s, "room_2", n, 290)
	findOne(other, len(evs)-1)
	findOne(e.s, n+100)
	all, err := e.search(other, "common", stick.SearchQuery{Limit: stick.MaxSearchLimit})
	if err != nil || len(all) != stick.MaxSearchLimit {
		e.t.Fatalf("search for a word of all %d notes with limit %d: %d hits, %v", len(evs), stick.MaxSearchLimit, len(all), err)
	}
	d := stick.Document{DocVersion: stick.DocVersion{RoomID: "room_2", Version: 1, Author: "b", Op: stick.DocUpdate, CreatedAt: at(700)},
		Content: "# Late\n\nthe ocelot paragraph\n"}
	d.Size = len(d.Content)
	e.update(other, func(tx stick.Tx) error { return tx.SaveDoc(d) })
	hits, err := e.search(e.s, "ocelot", stick.SearchQuery{})
	if err != nil || len(hits) != 1 || hits[0].Type != stick.DocumentHit || hits[0].Section != "Late" {
		e.t.Fatalf("search for a paragraph another handle just saved: %+v %v", hits, err)
	}
}
