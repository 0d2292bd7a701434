package storetest

import (
	"slices"
	"time"

	"github.com/stickhq/stick/stick"
)

var channelCases = []testCase{
	{"StatsPerChannel", testChannelStats},
	{"PruneByCount", testPruneByCount},
	{"PruneByBytes", testPruneByBytes},
	{"PruneByAge", testPruneByAge},
	{"PruneAnyLimit", testPruneAnyLimit},
	{"PruneNamedChannel", testPruneNamedChannel},
	{"PruneRollsBack", testPruneRollsBack},
	{"PruneNeverGivesASeqTwice", testPruneSeq},
	{"PrunedNotesLeaveTheSearch", testPruneSearch},
	{"HistoryFilters", testHistoryFilters},
	{"HistoryPagesBack", testHistoryPaging},
}

// inChannel is a note of room by from in channel ("" for none), written
// at at(n).
func inChannel(room, channel, from, text string, n int) stick.Event {
	ev := note(room, from, text, n)
	ev.Channel = channel
	return ev
}

// A room's notes are counted per channel, with the bytes of their texts
// (bytes, not characters) and the time of the newest (the last appended,
// whatever the times of the others); a note with no channel counts in
// DefaultChannel, with those that name it. Other events, though they
// have text, and another room's notes are not counted; a room with no
// notes has no stats.
func testChannelStats(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"), newRoom("room_3", "/w/three"))
	appendEvents(e,
		inChannel("room_1", "", "a", "abc", 10),
		inChannel("room_1", "review", "b", "über", 20),
		stick.Event{RoomID: "room_1", Type: stick.EventClose, From: "a", Text: "a conclusion, not a note", CreatedAt: at(21)},
		inChannel("room_1", stick.DefaultChannel, "a", "de", 15),
		inChannel("room_2", "review", "z", "elsewhere", 30),
		inChannel("room_1", "review", "a", "later, earlier", 5),
		inChannel("room_1", "ci", "c", "", 7),
	)
	appendEvents(e, stick.Event{RoomID: "room_1", Type: stick.EventJoin, From: "d", CreatedAt: at(40)})
	stats := func(room string) map[string]stick.ChannelStat {
		got := read(e, func(tx stick.Tx) ([]stick.ChannelStat, error) { return tx.ChannelStats(room) })
		out := map[string]stick.ChannelStat{}
		for _, s := range got {
			if _, dup := out[s.Channel]; dup {
				e.t.Fatalf("ChannelStats(%s) gives %s twice: %+v", room, s.Channel, got)
			}
			s.Last = utc(s.Last)
			out[s.Channel] = s
		}
		return out
	}
	want := map[string]stick.ChannelStat{
		stick.DefaultChannel: {Channel: stick.DefaultChannel, Notes: 2, Bytes: 5, Last: at(15)},
		"review":             {Channel: "review", Notes: 2, Bytes: int64(len("über") + len("later, earlier")), Last: at(5)},
		"ci":                 {Channel: "ci", Notes: 1, Bytes: 0, Last: at(7)},
	}
	mustEqual(e, "ChannelStats of room_1", stats("room_1"), want, func(m map[string]stick.ChannelStat) map[string]stick.ChannelStat { return m })
	mustEqual(e, "ChannelStats of room_2", stats("room_2"), map[string]stick.ChannelStat{
		"review": {Channel: "review", Notes: 1, Bytes: 9, Last: at(30)},
	}, func(m map[string]stick.ChannelStat) map[string]stick.ChannelStat { return m })
	for _, room := range []string{"room_3", "room_none"} {
		if got := stats(room); len(got) != 0 {
			e.t.Fatalf("ChannelStats of %s, which has no notes: %+v", room, got)
		}
	}
}

// pruneFixture writes room_1's log for the prune tests: notes of the
// default channel (with no channel, or naming it), of review, a release
// with text, and a note of room_2 in the default channel, then a join in
// room_2, so that no note of room_1 is the store's newest event. It
// returns the events by label.
func pruneFixture(e *env) map[string]stick.Event {
	e.t.Helper()
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	labels := []string{"g0", "r0", "g1", "release", "g2", "r1", "g3", "other", "join"}
	evs := appendEvents(e,
		inChannel("room_1", "", "a", "ab", 1),
		inChannel("room_1", "review", "b", "review zero", 2),
		inChannel("room_1", stick.DefaultChannel, "b", "abcdefgh", 3),
		stick.Event{RoomID: "room_1", Type: stick.EventRelease, From: "a", To: "b", Text: "not a note", CreatedAt: at(4),
			Handoff: &stick.Handoff{Status: "done", NextAction: "review"}},
		inChannel("room_1", "", "a", "abcd", 5),
		inChannel("room_1", "review", "a", "review one", 6),
		inChannel("room_1", "", "b", "éééé", 7),
		inChannel("room_2", "", "z", "another room", 1),
		stick.Event{RoomID: "room_2", Type: stick.EventJoin, From: "y", CreatedAt: at(9)},
	)
	out := map[string]stick.Event{}
	for i, l := range labels {
		out[l] = evs[i]
	}
	return out
}

// prune runs PruneNotes in an Update of the first handle and checks how
// many notes it says it deleted.
func prune(e *env, room, channel string, maxMessages int, maxBytes int64, olderThan time.Time, want int) {
	e.t.Helper()
	n := write(e, func(tx stick.Tx) (int, error) { return tx.PruneNotes(room, channel, maxMessages, maxBytes, olderThan) })
	if n != want {
		e.t.Fatalf("PruneNotes(%s, %q, %d, %d, %v) = %d, want %d", room, channel, maxMessages, maxBytes, olderThan, n, want)
	}
}

// wantLog fails the test unless room's log is the events labelled want,
// in order, each as appended.
func wantLog(e *env, what, room string, evs map[string]stick.Event, want ...string) {
	e.t.Helper()
	got := read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.Events(room, 0, 100) })
	var wantEvs []stick.Event
	for _, l := range want {
		wantEvs = append(wantEvs, evs[l])
	}
	mustEqual(e, what+": the log of "+room, got, wantEvs, normAll(normEvent))
}

// Past maxMessages, the oldest notes of the channel go, and only they:
// the other channel's notes, the release and the other room's note stay.
// Pruning again deletes nothing, and so does a call with no limit.
func testPruneByCount(e *env) {
	evs := pruneFixture(e)
	prune(e, "room_1", stick.DefaultChannel, 2, 0, time.Time{}, 2)
	wantLog(e, "after keeping 2 notes of the default channel", "room_1", evs, "r0", "release", "g2", "r1", "g3")
	wantLog(e, "after pruning room_1", "room_2", evs, "other", "join")
	prune(e, "room_1", stick.DefaultChannel, 2, 0, time.Time{}, 0)
	prune(e, "room_1", "", 0, 0, time.Time{}, 0)
	prune(e, "room_1", "", 1, 0, time.Time{}, 1)
	wantLog(e, "after keeping 1 note of the default channel, named \"\"", "room_1", evs, "r0", "release", "r1", "g3")
	for _, ev := range []stick.Event{evs["g0"], evs["g1"], evs["g2"]} {
		if got, ok := eventOf(e, "room_1", ev.Seq); ok {
			e.t.Fatalf("Event finds pruned note %d: %+v", ev.Seq, got)
		}
	}
}

// Past maxBytes, counted in bytes of text from the newest note back, the
// notes that do not fit go: the newest keeps 8 bytes (4 characters), the
// one before would make 12, past 10; a newest note past the limit alone
// goes too.
func testPruneByBytes(e *env) {
	evs := pruneFixture(e)
	prune(e, "room_1", stick.DefaultChannel, 0, 12, time.Time{}, 2)
	wantLog(e, "after keeping 12 bytes of the default channel", "room_1", evs, "r0", "release", "g2", "r1", "g3")
	prune(e, "room_1", stick.DefaultChannel, 0, 10, time.Time{}, 1)
	wantLog(e, "after keeping 10 bytes of the default channel", "room_1", evs, "r0", "release", "r1", "g3")
	prune(e, "room_1", stick.DefaultChannel, 0, 7, time.Time{}, 1)
	wantLog(e, "after keeping 7 bytes of the default channel", "room_1", evs, "r0", "release", "r1")
	wantLog(e, "after pruning room_1", "room_2", evs, "other", "join")
}

// Notes posted before olderThan go; one posted at it stays.
func testPruneByAge(e *env) {
	evs := pruneFixture(e)
	prune(e, "room_1", stick.DefaultChannel, 0, 0, at(5), 2)
	wantLog(e, "after pruning the default channel before at(5)", "room_1", evs, "r0", "release", "g2", "r1", "g3")
	prune(e, "room_1", stick.DefaultChannel, 0, 0, at(100), 2)
	wantLog(e, "after pruning the default channel before at(100)", "room_1", evs, "r0", "release", "r1")
	wantLog(e, "after pruning room_1", "room_2", evs, "other", "join")
}

// A note past any one of the limits goes.
func testPruneAnyLimit(e *env) {
	evs := pruneFixture(e)
	prune(e, "room_1", stick.DefaultChannel, 3, 1000, at(4), 2)
	wantLog(e, "after keeping 3 notes posted from at(4) on", "room_1", evs, "r0", "release", "g2", "r1", "g3")
	prune(e, "room_1", stick.DefaultChannel, 3, 8, time.Time{}, 1)
	wantLog(e, "after keeping 3 notes of 8 bytes", "room_1", evs, "r0", "release", "r1", "g3")
}

// A named channel's notes are pruned apart from the default channel's.
func testPruneNamedChannel(e *env) {
	evs := pruneFixture(e)
	prune(e, "room_1", "review", 1, 0, time.Time{}, 1)
	wantLog(e, "after keeping 1 note of review", "room_1", evs, "g0", "g1", "release", "g2", "r1", "g3")
	prune(e, "room_1", "ci", 0, 0, at(100), 0)
	prune(e, "room_2", "review", 0, 0, at(100), 0)
	prune(e, "room_none", "", 1, 0, time.Time{}, 0)
	wantLog(e, "after pruning channels without notes", "room_1", evs, "g0", "g1", "release", "g2", "r1", "g3")
}

// Notes pruned in an Update that fails are kept; inside a View,
// PruneNotes fails and deletes nothing.
func testPruneRollsBack(e *env) {
	evs := pruneFixture(e)
	err := e.s.Update(e.ctx, func(tx stick.Tx) error {
		if n, err := tx.PruneNotes("room_1", "", 1, 0, time.Time{}); n != 3 || err != nil {
			e.t.Fatalf("PruneNotes in an update that then fails: %d %v; want 3", n, err)
		}
		if got, err := tx.Events("room_1", 0, 100); err != nil || len(got) != 4 {
			e.t.Fatalf("the log read in the transaction that pruned it: %d events, %v; want 4", len(got), err)
		}
		return errRollback
	})
	if err == nil {
		e.t.Fatal("an update whose function failed returned nil")
	}
	all := []string{"g0", "r0", "g1", "release", "g2", "r1", "g3"}
	wantLog(e, "after a rolled-back prune", "room_1", evs, all...)
	e.view(e.s, func(tx stick.Tx) error {
		if _, err := tx.PruneNotes("room_1", "", 1, 0, time.Time{}); err == nil {
			e.t.Error("PruneNotes inside View succeeded; write methods must fail in a read transaction")
		}
		return nil
	})
	wantLog(e, "after a prune inside View", "room_1", evs, all...)
}

// A pruned note's Seq is never given again: even when the store's newest
// event is a note that is pruned (which a store may keep until another
// event is appended), the next event's Seq is greater than every Seq
// given before, and a later prune deletes what was kept.
func testPruneSeq(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"))
	evs := appendEvents(e, note("room_1", "a", "one", 1), note("room_1", "a", "two", 2), note("room_1", "a", "three", 3))
	n := write(e, func(tx stick.Tx) (int, error) { return tx.PruneNotes("room_1", "", 0, 0, at(100)) })
	left := read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.Events("room_1", 0, 100) })
	switch {
	case n == 3 && len(left) == 0:
	case n == 2 && len(left) == 1 && left[0].Seq == evs[2].Seq:
	default:
		e.t.Fatalf("pruning every note, the newest event of the store among them: %d deleted, %v left; want all 3, or the 2 older ones",
			n, seqs(left))
	}
	next := appendEvents(e, stick.Event{RoomID: "room_1", Type: stick.EventJoin, From: "b", CreatedAt: at(200)})[0]
	if next.Seq <= evs[2].Seq {
		e.t.Fatalf("the event appended after the prune got Seq %d; want more than %d, the greatest given before", next.Seq, evs[2].Seq)
	}
	prune(e, "room_1", "", 0, 0, at(100), 3-n)
	wantLog(e, "after pruning again", "room_1", map[string]stick.Event{"join": next}, "join")
}

// A pruned note is no longer found by a search, whether it was indexed
// before it was pruned or not yet; the notes kept, and those of another
// channel, are, by whole words and prefixes.
func testPruneSearch(e *env) {
	needSearch(e)
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	evs := appendEvents(e,
		inChannel("room_1", "", "a", "wombat alpha", 1),
		inChannel("room_1", "", "a", "wombat beta", 2),
		inChannel("room_1", "review", "b", "wombat gamma", 3),
	)
	if hits := e.mustSearch("wombat", stick.SearchQuery{}); len(hits) != 3 {
		e.t.Fatalf("search for wombat before the prune: %v; want 3 hits", hitSeqs(hits))
	}
	later := appendEvents(e,
		inChannel("room_1", "", "a", "wombat delta", 4),
		inChannel("room_1", stick.DefaultChannel, "b", "wombat epsilon", 5),
		stick.Event{RoomID: "room_2", Type: stick.EventJoin, From: "z", CreatedAt: at(6)},
	)
	prune(e, "room_1", "", 1, 0, time.Time{}, 3)
	kept := []int64{evs[2].Seq, later[1].Seq}
	for _, q := range []string{"wombat", "wom*", "wombat OR alpha OR beta OR delta", "epsilon OR gamma"} {
		if got := hitSeqs(e.mustSearch(q, stick.SearchQuery{})); !sameSeqs(got, kept) {
			e.t.Errorf("search %q after the prune: %v; want %v, the notes kept", q, got, kept)
		}
	}
	for _, q := range []string{"alpha", "beta", "delta", "alp*", "delt*"} {
		if got := e.mustSearch(q, stick.SearchQuery{}); len(got) != 0 {
			e.t.Errorf("search %q, the word of a pruned note: %v; want no hit", q, hitSeqs(got))
		}
	}
	// Notes appended after the prune are found, and the pruned ones still not.
	more := appendEvents(e, inChannel("room_1", "", "a", "wombat zeta", 7))
	kept = append(kept, more[0].Seq)
	if got := hitSeqs(e.mustSearch("wombat", stick.SearchQuery{})); !sameSeqs(got, kept) {
		e.t.Errorf("search for wombat after another note: %v; want %v", got, kept)
	}
}

// sameSeqs reports whether a and b hold the same sequence numbers, in any order.
func sameSeqs(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// historyFixture writes room_1's log for the History tests and returns
// its events, oldest first; room_2 has a note too.
func historyFixture(e *env) []stick.Event {
	e.t.Helper()
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	typed := func(ev stick.Event, t stick.NoteType) stick.Event {
		ev.MessageType = t
		return ev
	}
	directed := typed(inChannel("room_1", stick.DefaultChannel, "a", "decided", 5), stick.NoteDecision)
	directed.Recipients, directed.Interrupt = []string{"b"}, true
	evs := appendEvents(e,
		stick.Event{RoomID: "room_1", Type: stick.EventJoin, From: "a", CreatedAt: at(1)},  // 0
		inChannel("room_1", "", "a", "first", 2),                                           // 1
		typed(inChannel("room_1", "review", "b", "why?", 3), stick.NoteQuestion),           // 2
		stick.Event{RoomID: "room_1", Type: stick.EventClaim, From: "a", CreatedAt: at(4)}, // 3
		directed, // 4
		stick.Event{RoomID: "room_1", Type: stick.EventRelease, From: "a", To: "b", CreatedAt: at(6), Text: "released",
			Handoff: &stick.Handoff{Status: "done", NextAction: "go on"}}, // 5
		typed(inChannel("room_1", "ci", "b", "green", 7), ""),                     // 6: no message type
		typed(inChannel("room_1", "review", "c", "because", 8), stick.NoteAnswer), // 7
		inChannel("room_2", "", "a", "elsewhere", 9),
	)
	return evs[:8]
}

// History keeps the events that match every filter set (a list matching
// any of its entries), the newest Limit of them, oldest first. A
// channel filter keeps notes only, a note with no channel in
// DefaultChannel; a message type filter keeps notes only, a note with no
// message type of DefaultNoteType.
func testHistoryFilters(e *env) {
	evs := historyFixture(e)
	pick := func(is ...int) []stick.Event {
		out := []stick.Event{}
		for _, i := range is {
			out = append(out, evs[i])
		}
		return out
	}
	all := pick(0, 1, 2, 3, 4, 5, 6, 7)
	for _, tc := range []struct {
		what string
		q    stick.HistoryQuery
		want []stick.Event
	}{
		{"no filter", stick.HistoryQuery{}, all},
		{"limit 3", stick.HistoryQuery{Limit: 3}, pick(5, 6, 7)},
		{"limit 1", stick.HistoryQuery{Limit: 1}, pick(7)},
		{"the default channel", stick.HistoryQuery{Channels: []string{stick.DefaultChannel}}, pick(1, 4)},
		{"review or ci", stick.HistoryQuery{Channels: []string{"review", "ci"}}, pick(2, 6, 7)},
		{"a channel with no notes", stick.HistoryQuery{Channels: []string{"roadmap"}}, pick()},
		{"from a", stick.HistoryQuery{From: []string{"a"}}, pick(0, 1, 3, 4, 5)},
		{"from b or c", stick.HistoryQuery{From: []string{"b", "c"}}, pick(2, 6, 7)},
		{"from nobody there", stick.HistoryQuery{From: []string{"z"}}, pick()},
		{"claims and releases", stick.HistoryQuery{Types: []stick.EventType{stick.EventClaim, stick.EventRelease}}, pick(3, 5)},
		{"notes", stick.HistoryQuery{Types: []stick.EventType{stick.EventNote}}, pick(1, 2, 4, 6, 7)},
		{"plain notes", stick.HistoryQuery{NoteTypes: []stick.NoteType{stick.DefaultNoteType}}, pick(1, 6)},
		{"questions and answers", stick.HistoryQuery{NoteTypes: []stick.NoteType{stick.NoteQuestion, stick.NoteAnswer}}, pick(2, 7)},
		{"since at(4)", stick.HistoryQuery{Since: at(4)}, pick(3, 4, 5, 6, 7)},
		{"until at(4)", stick.HistoryQuery{Until: at(4)}, pick(0, 1, 2)},
		{"from at(3) until at(6)", stick.HistoryQuery{Since: at(3), Until: at(6)}, pick(2, 3, 4)},
		{"before the fifth", stick.HistoryQuery{Before: evs[4].Seq}, pick(0, 1, 2, 3)},
		{"the default channel or review, from a", stick.HistoryQuery{Channels: []string{stick.DefaultChannel, "review"}, From: []string{"a"}}, pick(1, 4)},
		{"review answers", stick.HistoryQuery{Channels: []string{"review"}, NoteTypes: []stick.NoteType{stick.NoteAnswer}}, pick(7)},
		{"notes and releases from a since at(3)", stick.HistoryQuery{From: []string{"a"}, Types: []stick.EventType{stick.EventNote, stick.EventRelease},
			Since: at(3)}, pick(4, 5)},
		{"claims of the default channel", stick.HistoryQuery{Types: []stick.EventType{stick.EventClaim}, Channels: []string{stick.DefaultChannel}}, pick()},
		{"claims of plain notes", stick.HistoryQuery{Types: []stick.EventType{stick.EventClaim}, NoteTypes: []stick.NoteType{stick.DefaultNoteType}}, pick()},
		{"from b, before the eighth, limit 1", stick.HistoryQuery{From: []string{"b"}, Before: evs[7].Seq, Limit: 1}, pick(6)},
		{"everything, from at(2) until at(8), before the seventh, limit 2", stick.HistoryQuery{
			Channels: []string{"review", stick.DefaultChannel, "ci"}, From: []string{"a", "b"}, Types: []stick.EventType{stick.EventNote},
			NoteTypes: []stick.NoteType{stick.DefaultNoteType, stick.NoteQuestion, stick.NoteDecision}, Since: at(2), Until: at(8),
			Before: evs[6].Seq, Limit: 2}, pick(2, 4)},
	} {
		q := tc.q
		q.RoomID = "room_1"
		if q.Limit == 0 {
			q.Limit = 100
		}
		got := read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.History(q) })
		mustEqual(e, "History, "+tc.what, got, tc.want, normAll(normEvent))
	}
	for _, room := range []string{"room_none", ""} {
		if got := read(e, func(tx stick.Tx) ([]stick.Event, error) {
			return tx.History(stick.HistoryQuery{RoomID: room, Limit: 10})
		}); len(got) != 0 {
			e.t.Fatalf("History of %q: %v; want none", room, seqs(got))
		}
	}
}

// History read backwards a page at a time, each page's Before the Seq of
// the oldest event of the page before, gives every matching event once.
func testHistoryPaging(e *env) {
	evs := historyFixture(e)
	for _, tc := range []struct {
		q    stick.HistoryQuery
		want []stick.Event
	}{
		{stick.HistoryQuery{Limit: 3}, evs},
		{stick.HistoryQuery{Limit: 2, From: []string{"a"}}, []stick.Event{evs[0], evs[1], evs[3], evs[4], evs[5]}},
		{stick.HistoryQuery{Limit: 1, Channels: []string{"review"}}, []stick.Event{evs[2], evs[7]}},
	} {
		q := tc.q
		q.RoomID = "room_1"
		var pages [][]stick.Event
		for range len(evs) + 1 {
			page := read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.History(q) })
			if len(page) == 0 {
				break
			}
			if len(page) > q.Limit {
				e.t.Fatalf("History with limit %d gave %d events", q.Limit, len(page))
			}
			pages = append(pages, page)
			q.Before = page[0].Seq
		}
		var got []stick.Event
		for i := len(pages) - 1; i >= 0; i-- {
			got = append(got, pages[i]...)
		}
		mustEqual(e, "History read back a page at a time", got, tc.want, normAll(normEvent))
	}
}
