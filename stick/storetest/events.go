package storetest

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/stickhq/stick/stick"
)

var eventCases = []testCase{
	{"AppendAssignsSeqAndID", testAppendSeqAndID},
	{"FieldsRoundTrip", testEventFields},
	{"Reads", testEventReads},
	{"EmptyRoom", testEventsEmptyRoom},
	{"SentEventByClientMessageID", testSentEvent},
	{"DirectedNotesThroughEveryRead", testDirectedNotes},
}

// Every appended event gets a Seq greater than that of every event
// committed before, in any room, and of those appended before it in its
// own transaction; one rolled back takes no Seq that a later event would
// need to be greater than. An event given no ID gets one of its own; a
// given ID is kept.
func testAppendSeqAndID(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	given := note("room_2", "b", "given id", 2)
	given.ID = "evt_given_1"
	first := appendEvents(e, note("room_1", "a", "one", 1), given, note("room_1", "a", "three", 3))
	second := appendEvents(e, note("room_2", "b", "four", 4))
	if err := e.s.Update(e.ctx, func(tx stick.Tx) error {
		for range 3 {
			if _, err := tx.AppendEvent(note("room_1", "a", "rolled back", 5)); err != nil {
				return err
			}
		}
		return errRollback
	}); err == nil {
		e.t.Fatal("an update whose function failed returned nil")
	}
	third := appendEvents(e, note("room_1", "a", "six", 6), note("room_2", "b", "seven", 7))
	all := slices.Concat(first, second, third)
	for i, ev := range all {
		if ev.Seq <= 0 {
			e.t.Fatalf("event %d got Seq %d; want a positive one", i, ev.Seq)
		}
		if i > 0 && ev.Seq <= all[i-1].Seq {
			e.t.Fatalf("Seqs in the order of appending: %v; each must be greater than every one before, in any room", seqs(all))
		}
	}
	ids := map[string]bool{}
	for i, ev := range all {
		if ev.ID == "" || ids[ev.ID] {
			e.t.Fatalf("event %d got ID %q; want one of its own (IDs so far %v)", i, ev.ID, ids)
		}
		ids[ev.ID] = true
	}
	if all[1].ID != given.ID {
		e.t.Fatalf("an event given the ID %q got %q", given.ID, all[1].ID)
	}
	for _, want := range all {
		got, ok := eventOf(e, want.RoomID, want.Seq)
		if !ok {
			e.t.Fatalf("event %d of %s is not found", want.Seq, want.RoomID)
		}
		mustEqual(e, "an appended event read back", got, want, normEvent)
	}
	var rolledBack []stick.Event
	for _, room := range []string{"room_1", "room_2"} {
		evs := read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.Events(room, 0, 100) })
		for _, ev := range evs {
			if ev.Text == "rolled back" {
				rolledBack = append(rolledBack, ev)
			}
		}
	}
	if len(rolledBack) > 0 {
		e.t.Fatalf("events of a rolled-back update were kept: %+v", rolledBack)
	}
}

// eventOf reads one event in a View of the first handle.
func eventOf(e *env, room string, seq int64) (stick.Event, bool) {
	e.t.Helper()
	var ev stick.Event
	var ok bool
	e.view(e.s, func(tx stick.Tx) error {
		var err error
		ev, ok, err = tx.Event(room, seq)
		return err
	})
	return ev, ok
}

// An event with every field set reads back as it was appended, in the
// transaction that appended it and later.
func testEventFields(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"))
	full := stick.Event{
		ID: "evt_full", RoomID: "room_1", TurnID: 12, Type: stick.EventPass, From: "codex:1", To: "claude-code:2",
		Handoff: &stick.Handoff{
			Status: "parser done; lexer half way", NextAction: "finish the lexer",
			Artifacts: []stick.Artifact{
				{Path: "lexer/lexer.go", Lines: []int{10, 42}, Role: stick.RoleEdit, Note: "the state table"},
				{Path: "docs/grammar.md", Role: stick.RoleContext},
			},
			OpenQuestions: []string{"keep the old tokens?", "unicode identifiers?"},
			DoNot:         []string{"touch the parser"},
		},
		Reason: "direct_pass", Text: "über ✓ \"quoted\" and\nnewline", MessageType: stick.NoteDecision, ClientMessageID: "cm-1",
		Recipients: []string{"claude-code:2", "human:ana@host"}, Interrupt: true, Channel: "review",
		Ref: 3, Data: json.RawMessage(`{"order": ["a", "b"], "n": 2, "nested": {"ok": true}}`),
		CreatedAt: at(42).Add(999 * time.Millisecond),
	}
	bare := stick.Event{RoomID: "room_1", Type: stick.EventJoin, CreatedAt: at(43)}
	var stored []stick.Event
	e.update(e.s, func(tx stick.Tx) error {
		for _, ev := range []stick.Event{full, bare} {
			got, err := tx.AppendEvent(ev)
			if err != nil {
				return err
			}
			want := ev
			want.Seq = got.Seq
			if want.ID == "" {
				want.ID = got.ID
			}
			mustEqual(e, "the event AppendEvent returns", got, want, normEvent)
			again, ok, err := tx.Event(ev.RoomID, got.Seq)
			if err != nil || !ok {
				e.t.Fatalf("an event appended in this transaction: ok %v, err %v", ok, err)
			}
			mustEqual(e, "an event read in the transaction that appended it", again, want, normEvent)
			stored = append(stored, want)
		}
		return nil
	})
	for _, want := range stored {
		got, ok := eventOf(e, want.RoomID, want.Seq)
		if !ok {
			e.t.Fatalf("event %d is not found", want.Seq)
		}
		mustEqual(e, "an event read back", got, want, normEvent)
	}
}

// The reads of a room's log: a page after a cursor, oldest first; the
// same without one member's events; the newest event, of some types or
// any; the newest Seq; the newest few, oldest first; and when the newest
// was appended. None of them sees another room's events.
func testEventReads(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	var evs []stick.Event
	for i, spec := range []struct {
		room string
		typ  stick.EventType
		from string
	}{
		{"room_1", stick.EventJoin, "a"}, {"room_1", stick.EventJoin, "b"}, {"room_2", stick.EventJoin, "z"},
		{"room_1", stick.EventClaim, "a"}, {"room_1", stick.EventNote, "b"}, {"room_1", stick.EventRelease, "a"},
		{"room_2", stick.EventNote, "z"}, {"room_1", stick.EventReorder, ""}, {"room_1", stick.EventNote, "a"},
	} {
		ev := stick.Event{RoomID: spec.room, Type: spec.typ, From: spec.from, Text: "event " + itoa(i), CreatedAt: at(100 - i)}
		evs = append(evs, appendEvents(e, ev)...)
	}
	var room1 []stick.Event
	for _, ev := range evs {
		if ev.RoomID == "room_1" {
			room1 = append(room1, ev)
		}
	}
	// room1: 0 join a, 1 join b, 2 claim a, 3 note b, 4 release a, 5 reorder, 6 note a.
	events := func(after int64, limit int) []stick.Event {
		return read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.Events("room_1", after, limit) })
	}
	norm := normAll(normEvent)
	mustEqual(e, "Events after 0", events(0, 100), room1, norm)
	mustEqual(e, "Events after 0, limit 3", events(0, 3), room1[:3], norm)
	mustEqual(e, "Events after the third", events(room1[2].Seq, 2), room1[3:5], norm)
	mustEqual(e, "Events after the Seq of another room's event", events(evs[2].Seq, 100), room1[2:], norm)
	if got := events(room1[6].Seq, 100); len(got) != 0 {
		e.t.Fatalf("Events after the newest: %+v", got)
	}

	eventsFor := func(after int64, skip string) []stick.Event {
		return read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.EventsFor("room_1", after, 100, skip) })
	}
	mustEqual(e, `EventsFor skipping ""`, eventsFor(0, ""), room1, norm)
	mustEqual(e, "EventsFor skipping a", eventsFor(0, "a"), []stick.Event{room1[1], room1[3], room1[5]}, norm)
	mustEqual(e, "EventsFor skipping b after the second", eventsFor(room1[1].Seq, "b"), []stick.Event{room1[2], room1[4], room1[5], room1[6]}, norm)
	if got := read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.EventsFor("room_1", 0, 2, "a") }); len(got) != 2 || got[0].Seq != room1[1].Seq || got[1].Seq != room1[3].Seq {
		e.t.Fatalf("EventsFor skipping a, limit 2: %v; want Seqs %d, %d", seqs(got), room1[1].Seq, room1[3].Seq)
	}

	lastEvent := func(types ...stick.EventType) (stick.Event, bool) {
		var ev stick.Event
		var ok bool
		e.view(e.s, func(tx stick.Tx) error {
			var err error
			ev, ok, err = tx.LastEvent("room_1", types...)
			return err
		})
		return ev, ok
	}
	for _, tc := range []struct {
		types []stick.EventType
		want  int
	}{
		{nil, 6},
		{[]stick.EventType{stick.EventClaim}, 2},
		{[]stick.EventType{stick.EventRelease, stick.EventJoin}, 4},
		{[]stick.EventType{stick.EventJoin}, 1},
		{[]stick.EventType{stick.EventClose}, -1},
	} {
		got, ok := lastEvent(tc.types...)
		if tc.want < 0 {
			if ok {
				e.t.Fatalf("LastEvent(%v) of a room with no such event: %+v", tc.types, got)
			}
			continue
		}
		if !ok {
			e.t.Fatalf("LastEvent(%v) found nothing", tc.types)
		}
		mustEqual(e, "LastEvent", got, room1[tc.want], normEvent)
	}

	if got := read(e, func(tx stick.Tx) (int64, error) { return tx.LastSeq("room_1") }); got != room1[6].Seq {
		e.t.Fatalf("LastSeq = %d, want %d", got, room1[6].Seq)
	}
	latest := func(limit int) []stick.Event {
		return read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.LatestEvents("room_1", limit) })
	}
	mustEqual(e, "LatestEvents 3", latest(3), room1[4:], norm)
	mustEqual(e, "LatestEvents 1", latest(1), room1[6:], norm)
	mustEqual(e, "LatestEvents 50", latest(50), room1, norm)
	before := func(seq int64, limit int) []stick.Event {
		return read(e, func(tx stick.Tx) ([]stick.Event, error) { return tx.EventsBefore("room_1", seq, limit) })
	}
	mustEqual(e, "EventsBefore the 5th, 2", before(room1[4].Seq, 2), room1[2:4], norm)
	mustEqual(e, "EventsBefore the 2nd, 50", before(room1[1].Seq, 50), room1[:1], norm)
	if got := before(room1[0].Seq, 10); len(got) != 0 {
		e.t.Fatalf("EventsBefore the first event: %+v", got)
	}
	// The newest event was written at the earliest time of all: when it
	// was appended is its time, not the latest time in the log.
	if got := read(e, func(tx stick.Tx) (time.Time, error) { return tx.LastEventAt("room_1") }); !got.Equal(room1[6].CreatedAt) {
		e.t.Fatalf("LastEventAt = %v, want %v, the newest event's time", got, room1[6].CreatedAt)
	}
	if _, ok, err := eventOfIn(e, "room_1", evs[2].Seq); ok || err != nil {
		e.t.Fatalf("Event of room_1 with the Seq of an event of room_2: ok %v, err %v; want not found", ok, err)
	}
}

// eventOfIn is eventOf with its error.
func eventOfIn(e *env, room string, seq int64) (ev stick.Event, ok bool, err error) {
	err = e.s.View(e.ctx, func(tx stick.Tx) error {
		ev, ok, err = tx.Event(room, seq)
		return err
	})
	return ev, ok, err
}

// A room with no events, and one that does not exist, read as empty.
func testEventsEmptyRoom(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	appendEvents(e, note("room_2", "z", "elsewhere", 1))
	for _, room := range []string{"room_1", "room_none"} {
		e.view(e.s, func(tx stick.Tx) error {
			evs, err := tx.Events(room, 0, 10)
			if err != nil || len(evs) != 0 {
				e.t.Fatalf("Events of %s: %+v %v", room, evs, err)
			}
			if evs, err = tx.EventsFor(room, 0, 10, "z"); err != nil || len(evs) != 0 {
				e.t.Fatalf("EventsFor of %s: %+v %v", room, evs, err)
			}
			if evs, err = tx.LatestEvents(room, 10); err != nil || len(evs) != 0 {
				e.t.Fatalf("LatestEvents of %s: %+v %v", room, evs, err)
			}
			if evs, err = tx.EventsBefore(room, 1<<40, 10); err != nil || len(evs) != 0 {
				e.t.Fatalf("EventsBefore of %s: %+v %v", room, evs, err)
			}
			if ev, ok, err := tx.LastEvent(room); ok || err != nil {
				e.t.Fatalf("LastEvent of %s: %+v %v %v", room, ev, ok, err)
			}
			if ev, ok, err := tx.Event(room, 1); ok || err != nil {
				e.t.Fatalf("Event 1 of %s: %+v %v %v", room, ev, ok, err)
			}
			if seq, err := tx.LastSeq(room); seq != 0 || err != nil {
				e.t.Fatalf("LastSeq of %s: %d %v; want 0", room, seq, err)
			}
			if when, err := tx.LastEventAt(room); !when.IsZero() || err != nil {
				e.t.Fatalf("LastEventAt of %s: %v %v; want the zero time", room, when, err)
			}
			return nil
		})
	}
}

// SentEvent finds the event a member appended to a room with a client
// message id, and only that one: not another member's with the same id,
// nor one in another room; an id nobody used finds nothing.
func testSentEvent(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"), newRoom("room_2", "/w/two"))
	mk := func(room, from, cmid, text string) stick.Event {
		ev := note(room, from, text, 1)
		ev.ClientMessageID = cmid
		return ev
	}
	evs := appendEvents(e,
		mk("room_1", "a", "cm-1", "a's first"), mk("room_1", "b", "cm-1", "b's first"),
		mk("room_2", "a", "cm-2", "a's in room 2"), mk("room_1", "a", "", "no id"), mk("room_1", "a", "cm-2", "a's second"))
	e.update(e.s, func(tx stick.Tx) error {
		ev, err := tx.AppendEvent(mk("room_1", "c", "cm-3", "c's, in this transaction"))
		if err != nil {
			return err
		}
		got, ok, err := tx.SentEvent("room_1", "c", "cm-3")
		if err != nil || !ok || got.Seq != ev.Seq {
			e.t.Fatalf("SentEvent of a note appended in this transaction: %+v %v %v", got, ok, err)
		}
		return nil
	})
	for _, tc := range []struct {
		room, from, cmid string
		want             int
	}{
		{"room_1", "a", "cm-1", 0}, {"room_1", "b", "cm-1", 1}, {"room_2", "a", "cm-2", 2}, {"room_1", "a", "cm-2", 4},
		{"room_1", "c", "cm-1", -1}, {"room_2", "a", "cm-1", -1}, {"room_1", "b", "cm-2", -1}, {"room_1", "a", "cm-9", -1},
	} {
		var got stick.Event
		var ok bool
		e.view(e.s, func(tx stick.Tx) error {
			var err error
			got, ok, err = tx.SentEvent(tc.room, tc.from, tc.cmid)
			return err
		})
		switch {
		case tc.want < 0 && ok:
			e.t.Errorf("SentEvent(%s, %s, %s) found %+v; want nothing", tc.room, tc.from, tc.cmid, got)
		case tc.want >= 0 && !ok:
			e.t.Errorf("SentEvent(%s, %s, %s) found nothing", tc.room, tc.from, tc.cmid)
		case tc.want >= 0:
			mustEqual(e, "SentEvent", got, evs[tc.want], normEvent)
		}
	}
}

// A note's recipients, interrupt and channel read back as appended
// through every read of the log, and a note without them reads back
// without them (no recipients is nil, no channel ""), whatever the read.
func testDirectedNotes(e *env) {
	createRooms(e, newRoom("room_1", "/w/one"))
	directed := note("room_1", "a", "please review", 1)
	directed.Recipients, directed.Interrupt, directed.Channel, directed.ClientMessageID = []string{"codex:9", "human:bo"}, true, "review", "cm-d"
	one := note("room_1", "b", "to one, no interrupt", 2)
	one.Recipients, one.Channel, one.ClientMessageID = []string{"codex:9"}, stick.DefaultChannel, "cm-o"
	plain := note("room_1", "a", "to the room", 3)
	plain.ClientMessageID = "cm-p"
	evs := appendEvents(e, directed, one, plain)
	for i, want := range []stick.Event{directed, one, plain} {
		want.Seq, want.ID = evs[i].Seq, evs[i].ID
		mustEqual(e, "the note AppendEvent returns", evs[i], want, normEvent)
	}
	norm := normAll(normEvent)
	reads := map[string]func(tx stick.Tx) ([]stick.Event, error){
		"Events":       func(tx stick.Tx) ([]stick.Event, error) { return tx.Events("room_1", 0, 10) },
		"EventsFor":    func(tx stick.Tx) ([]stick.Event, error) { return tx.EventsFor("room_1", 0, 10, "c") },
		"LatestEvents": func(tx stick.Tx) ([]stick.Event, error) { return tx.LatestEvents("room_1", 10) },
		"EventsBefore": func(tx stick.Tx) ([]stick.Event, error) { return tx.EventsBefore("room_1", evs[2].Seq+1, 10) },
		"History": func(tx stick.Tx) ([]stick.Event, error) {
			return tx.History(stick.HistoryQuery{RoomID: "room_1", Limit: 10})
		},
		"Event": func(tx stick.Tx) ([]stick.Event, error) {
			var out []stick.Event
			for _, ev := range evs {
				got, ok, err := tx.Event("room_1", ev.Seq)
				if err != nil || !ok {
					return nil, fmt.Errorf("event %d: ok %v, err %v", ev.Seq, ok, err)
				}
				out = append(out, got)
			}
			return out, nil
		},
		"SentEvent": func(tx stick.Tx) ([]stick.Event, error) {
			var out []stick.Event
			for _, ev := range evs {
				got, ok, err := tx.SentEvent("room_1", ev.From, ev.ClientMessageID)
				if err != nil || !ok {
					return nil, fmt.Errorf("sent event %s: ok %v, err %v", ev.ClientMessageID, ok, err)
				}
				out = append(out, got)
			}
			return out, nil
		},
	}
	for name, fn := range reads {
		mustEqual(e, name, read(e, fn), evs, norm)
	}
	if bv, ok := e.s.(stick.BriefViewer); ok {
		var got []stick.Event
		err := bv.BriefView(e.ctx, func(tx stick.Tx) (err error) {
			got, err = tx.Events("room_1", 0, 10)
			return err
		})
		if err != nil {
			e.t.Fatal(err)
		}
		mustEqual(e, "Events in a BriefView", got, evs, norm)
	}
	again := directed
	again.ClientMessageID = "cm-last"
	last := appendEvents(e, again)[0]
	for _, types := range [][]stick.EventType{nil, {stick.EventNote}} {
		var got stick.Event
		e.view(e.s, func(tx stick.Tx) (err error) {
			got, _, err = tx.LastEvent("room_1", types...)
			return err
		})
		mustEqual(e, fmt.Sprintf("LastEvent(%v)", types), got, last, normEvent)
	}
}
