package storetest

import (
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

var roomCases = []testCase{
	{"CreateAndRead", testRoomCreateAndRead},
	{"SaveOverwritesTheProjection", testRoomSave},
	{"RoomsAt", testRoomsAt},
	{"RoomsUnder", testRoomsUnder},
	{"RoomsByKey", testRoomsByKey},
	{"RoomsNamed", testRoomsNamed},
	{"NamedRoomsHaveNoPath", testNamedRoomsHaveNoPath},
	{"ChannelDeclarations", testRoomChannels},
}

// fullRoom is a room with every field set.
func fullRoom(id, path string) stick.Room {
	return stick.Room{
		ID: id, Path: path, Key: "github.com/acme/api/-/w/full", Topic: "review", State: stick.StateOwned, SequenceIndex: 2,
		Owner: "codex:1", ReservedFor: "claude-code:2", PendingHandoffSeq: 7, GrantSeq: 9, TurnID: 4,
		LeaseID: "lease_1", LeaseExpiresAt: at(600).Add(250 * time.Millisecond), ClaimExpiresAt: at(1200), Concluder: "codex:1",
		Policy: stick.Policy{
			OwnerLeaseTTL: 45 * time.Minute, ClaimTTL: 20*time.Minute + 500*time.Millisecond,
			HeartbeatInterval: 5 * time.Minute, PresenceTTL: 4 * time.Hour, WaitMaxWait: 30 * time.Second,
			ProxyGrace: 10*time.Second + 250*time.Millisecond,
		},
		Channels:  declared(),
		CreatedAt: at(0), UpdatedAt: at(60).Add(7 * time.Millisecond),
	}
}

// declared is a room's channel declarations with every field set, and
// some not.
func declared() []stick.ChannelSpec {
	return []stick.ChannelSpec{
		{Name: "review", Description: "Reviews of \"pull\" requests, über ✓", MaxMessages: 200, MaxBytes: 1 << 20, MaxAge: 36*time.Hour + 1500*time.Millisecond},
		{Name: "ci", Description: "CI results"},
		{Name: stick.DefaultChannel, Description: "Everything else", MaxAge: time.Hour},
	}
}

// A created room reads back field for field, in its own transaction and
// in later ones; a room that does not exist is not found, without error.
func testRoomCreateAndRead(e *env) {
	full := fullRoom("room_full", "/w/full")
	named := fullRoom("room_named", "")
	named.Key, named.Name = "", "release-1.4-review"
	plain := newRoom("room_plain", "/w/plain")
	closed := newRoom("room_closed", "/w/closed")
	closed.State, closed.ClosedAt = stick.StateClosed, at(30)
	e.update(e.s, func(tx stick.Tx) error {
		for _, r := range []stick.Room{full, named, plain, closed} {
			if err := tx.CreateRoom(r); err != nil {
				return err
			}
		}
		got, ok, err := tx.Room(full.ID)
		if err != nil || !ok {
			e.t.Fatalf("a room created in this transaction: ok %v, err %v", ok, err)
		}
		mustEqual(e, "the room read in the transaction that created it", got, full, normRoom)
		return nil
	})
	for _, want := range []stick.Room{full, named, plain, closed} {
		got, ok, err := roomOf(e, e.s, want.ID)
		if err != nil || !ok {
			e.t.Fatalf("room %s: ok %v, err %v", want.ID, ok, err)
		}
		mustEqual(e, "room "+want.ID, got, want, normRoom)
	}
	if _, ok, err := roomOf(e, e.s, "room_none"); ok || err != nil {
		e.t.Fatalf("a room that does not exist: ok %v, err %v; want not found, no error", ok, err)
	}
}

// roomOf reads one room in a View of s.
func roomOf(e *env, s stick.Store, id string) (r stick.Room, ok bool, err error) {
	err = s.View(e.ctx, func(tx stick.Tx) error {
		r, ok, err = tx.Room(id)
		return err
	})
	return r, ok, err
}

// SaveRoom overwrites every field of the projection a turn changes,
// clearing those given empty, and a close writes its time.
func testRoomSave(e *env) {
	r := newRoom("room_1", "/w/one")
	createRooms(e, r)
	steps := []stick.Room{fullRoom(r.ID, r.Path), r}
	steps[0].Topic, steps[0].Key = r.Topic, r.Key // a room's topic and key never change
	closed := r
	closed.State, closed.UpdatedAt, closed.ClosedAt = stick.StateClosed, at(900), at(900)
	steps = append(steps, closed)
	for i, want := range steps {
		e.update(e.s, func(tx stick.Tx) error { return tx.SaveRoom(want) })
		got, ok, err := roomOf(e, e.s, r.ID)
		if err != nil || !ok {
			e.t.Fatalf("save %d: ok %v, err %v", i+1, ok, err)
		}
		mustEqual(e, "the room after save "+itoa(i+1), got, want, normRoom)
	}
}

// RoomsAt finds the rooms at any of the paths given, every topic of each,
// and closed ones only when asked.
func testRoomsAt(e *env) {
	a, aReview, b := newRoom("room_a", "/w/a"), newRoom("room_a_review", "/w/a"), newRoom("room_b", "/w/b")
	aReview.Topic = "review"
	c := newRoom("room_c", "/w/c")
	c.State, c.ClosedAt = stick.StateClosed, at(10)
	createRooms(e, a, aReview, b, c)
	for _, tc := range []struct {
		paths  []string
		closed bool
		want   []string
	}{
		{[]string{"/w/a", "/w/c"}, false, []string{"room_a", "room_a_review"}},
		{[]string{"/w/a", "/w/c"}, true, []string{"room_a", "room_a_review", "room_c"}},
		{[]string{"/w/b"}, false, []string{"room_b"}},
		{[]string{"/w/c"}, false, nil},
		{[]string{"/w", "/w/a/x", "/w/zz"}, true, nil},
		{nil, true, nil},
	} {
		got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsAt(tc.paths, tc.closed) })
		if ids := roomIDs(got); !slices.Equal(ids, tc.want) {
			e.t.Errorf("RoomsAt(%q, closed %v) = %q, want %q", tc.paths, tc.closed, ids, tc.want)
		}
	}
	got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsAt([]string{"/w/a"}, false) })
	for _, r := range got {
		want := a
		if r.ID == aReview.ID {
			want = aReview
		}
		mustEqual(e, "a room RoomsAt found", r, want, normRoom)
	}
}

// RoomsUnder finds the rooms strictly below a directory, with either
// separator, and every room for "".
func testRoomsUnder(e *env) {
	paths := map[string]string{
		"room_w": "/w", "room_wa": "/w/a", "room_wab": "/w/a/b", "room_wa_topic": "/w/a",
		"room_wx": "/wx", "room_wdash": "/w-x", "room_v": "/v", "room_wc": "/w/c",
		"room_win": `C:\w`, "room_win_a": `C:\w\a`, "room_win_x": `C:\wx`,
	}
	var rooms []stick.Room
	for id, p := range paths {
		r := newRoom(id, p)
		switch id {
		case "room_wa_topic":
			r.Topic = "review"
		case "room_wc":
			r.State, r.ClosedAt = stick.StateClosed, at(5)
		}
		rooms = append(rooms, r)
	}
	slices.SortFunc(rooms, func(a, b stick.Room) int { return strings.Compare(a.ID, b.ID) })
	createRooms(e, rooms...)
	all := []string{"room_v", "room_w", "room_wa", "room_wa_topic", "room_wab", "room_wdash", "room_win", "room_win_a", "room_win_x", "room_wx"}
	for _, tc := range []struct {
		dir    string
		closed bool
		want   []string
	}{
		{"/w", false, []string{"room_wa", "room_wa_topic", "room_wab"}},
		{"/w", true, []string{"room_wa", "room_wa_topic", "room_wab", "room_wc"}},
		{"/w/", false, []string{"room_wa", "room_wa_topic", "room_wab"}},
		{"/w/a", false, []string{"room_wab"}},
		{"/w/a/b", true, nil},
		{"/", false, []string{"room_v", "room_w", "room_wa", "room_wa_topic", "room_wab", "room_wdash", "room_wx"}},
		{`C:\w`, false, []string{"room_win_a"}},
		{"", false, all},
		{"", true, append(slices.Clone(all), "room_wc")},
	} {
		got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsUnder(tc.dir, tc.closed) })
		want := slices.Sorted(slices.Values(tc.want))
		if ids := roomIDs(got); !slices.Equal(ids, want) {
			e.t.Errorf("RoomsUnder(%q, closed %v) = %q, want %q", tc.dir, tc.closed, ids, want)
		}
	}
}

// roomIDs returns the ids of rooms, sorted: the contract promises no
// order of RoomsAt and RoomsUnder.
func roomIDs(rooms []stick.Room) []string {
	var ids []string
	for _, r := range rooms {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// A room's channel declarations read back as declared, in order, through
// every read of rooms; SaveRoom replaces them, and clears them when given
// none. A room that declares none reads back with nil Channels, whether
// it was given nil or an empty list: the domain reads both as "the
// default channels".
func testRoomChannels(e *env) {
	withChannels := func(r stick.Room, specs []stick.ChannelSpec) stick.Room {
		r.Channels = specs
		return r
	}
	keyed := withChannels(newRoom("room_keyed", "/w/keyed"), declared())
	keyed.Key = "github.com/acme/api"
	named := withChannels(newRoom("room_named", ""), declared()[1:2])
	named.Name = "triage"
	none := newRoom("room_none", "/w/none")
	empty := withChannels(newRoom("room_empty", "/w/empty"), []stick.ChannelSpec{})
	createRooms(e, keyed, named, none, empty)
	empty.Channels = nil
	want := map[string]stick.Room{keyed.ID: keyed, named.ID: named, none.ID: none, empty.ID: empty}
	check := func(what string, got []stick.Room, n int) {
		e.t.Helper()
		if len(got) != n {
			e.t.Fatalf("%s: %d rooms, want %d", what, len(got), n)
		}
		for _, r := range got {
			mustEqual(e, what+": room "+r.ID, r, want[r.ID], normRoom)
		}
	}
	for id := range want {
		r, ok, err := roomOf(e, e.s, id)
		if err != nil || !ok {
			e.t.Fatalf("room %s: ok %v, err %v", id, ok, err)
		}
		check("Room", []stick.Room{r}, 1)
	}
	check("RoomsAt", read(e, func(tx stick.Tx) ([]stick.Room, error) {
		return tx.RoomsAt([]string{"/w/keyed", "/w/none", "/w/empty"}, false)
	}), 3)
	check("RoomsUnder", read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsUnder("", true) }), 4)
	check("RoomsByKey", read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsByKey(keyed.Key, false) }), 1)
	check("RoomsNamed", read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsNamed("", false) }), 1)

	for i, specs := range [][]stick.ChannelSpec{declared()[2:], nil, declared(), {}} {
		r := withChannels(keyed, specs)
		r.TurnID, r.UpdatedAt = int64(i+1), at(100+i)
		e.update(e.s, func(tx stick.Tx) error { return tx.SaveRoom(r) })
		if len(specs) == 0 {
			r.Channels = nil
		}
		got, _, err := roomOf(e, e.s, keyed.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		mustEqual(e, "the room after save "+itoa(i+1), got, r, normRoom)
	}
}
