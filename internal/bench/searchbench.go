package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// searchEvents: full-text search over 100,000 notes, in 100 rooms, each
// with a document. The notes are drawn from a 3,000-word vocabulary with
// Zipf frequencies, as prose is. Queries are one or two words of any
// frequency, or a two-word phrase of words as common as in the notes;
// none uses the 20 commonest words, which people do not search for. A
// third of them search one room, the others every room.
func searchEvents(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "search", Unit: "queries"}
	events, rooms := 100_000, 100
	if e.o.Quick {
		events, rooms = 10_000, 20
	}
	a, err := joinAs(ctx, e.db, e.repo, "bench")
	if err != nil {
		return nil, err
	}
	defer a.close()
	if e.o.Log != nil {
		e.o.Log("search: writing %d notes in %d rooms", events, rooms)
	}
	_, ids, err := fillRooms(ctx, a, filepath.Dir(e.data), rooms)
	if err != nil {
		return nil, err
	}
	words := vocabulary(3000)
	rnd := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(7, 8)), 1.1, 2, uint64(len(words)-1))
	sentence := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = words[zipf.Uint64()]
		}
		return strings.Join(s, " ")
	}
	const batch = 20_000
	now := time.Now()
	for done := 0; done < events; done += batch {
		err := a.st.Update(ctx, func(tx stick.Tx) error {
			for range min(batch, events-done) {
				if _, err := tx.AppendEvent(stick.Event{RoomID: ids[rnd.IntN(len(ids))], Type: stick.EventNote, From: a.me.AgentID,
					MessageType: stick.DefaultNoteType, Text: sentence(8 + rnd.IntN(40)), CreatedAt: now}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, id := range ids {
		err := a.st.Update(ctx, func(tx stick.Tx) error {
			return tx.SaveDoc(stick.Document{DocVersion: stick.DocVersion{RoomID: id, Version: 1, Author: a.me.AgentID,
				Op: stick.DocUpdate, CreatedAt: now}, Content: "# Plan\n\n" + sentence(400)})
		})
		if err != nil {
			return nil, err
		}
	}
	// Timings see the steady state of a store after a bulk fill.
	if err := a.settle(ctx); err != nil {
		return nil, err
	}
	// Queries skip the 20 commonest words: word draws any other word
	// alike, common draws one as often as the notes use it.
	word := func() string { return words[20+rnd.IntN(len(words)-20)] }
	common := func() string {
		for {
			if k := zipf.Uint64(); k >= 20 {
				return words[k]
			}
		}
	}
	n := e.size(2000, 300)
	samples := make([]time.Duration, 0, n)
	hits := 0
	m := startMeter()
	for i := range n {
		var q string
		switch i % 4 {
		case 0, 1:
			q = word()
		case 2:
			q = word() + " " + word()
		default:
			q = `"` + common() + " " + common() + `"`
		}
		sq := stick.SearchQuery{Query: q}
		if i%3 == 0 {
			sq.RoomID = ids[rnd.IntN(len(ids))]
		}
		t0 := time.Now()
		res, err := a.svc.Search(ctx, sq)
		if err != nil {
			return nil, fmt.Errorf("search %q: %w", q, err)
		}
		samples = append(samples, time.Since(t0))
		if len(res) > 0 {
			hits++
		}
	}
	m.stop(&r, n)
	r.latencies(samples)
	if hits < n/4 {
		r.problem("only %d of %d queries found anything; the corpus does not exercise the index", hits, n)
	}
	r.Met = r.P99 <= 20*time.Millisecond
	r.note("%d notes and %d documents, %d of %d queries with hits, top 20", events, rooms, hits, n)
	return []Result{r}, nil
}

// vocabulary returns n distinct made-up words of two to four syllables.
func vocabulary(n int) []string {
	syl := []string{"ka", "lo", "mi", "ne", "ru", "ta", "po", "si", "de", "fa", "gu", "ha", "jo", "ke", "ly", "ma",
		"nu", "pe", "ri", "so", "tu", "va", "wo", "xe", "zo", "bra", "cle", "dri", "fro", "gla"}
	rnd := rand.New(rand.NewPCG(9, 10))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		for range 2 + rnd.IntN(3) {
			b.WriteString(syl[rnd.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
