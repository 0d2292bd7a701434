package storetest

import (
	"slices"

	"github.com/stickhq/stick/stick"
)

// RoomsByKey finds the rooms of one key, whatever their paths (clones of
// one repository on several hosts), oldest first, closed ones only when
// asked; no other key's room, and no room without a key.
func testRoomsByKey(e *env) {
	const key = "github.com/acme/api"
	clone := func(id, path string, created int) stick.Room {
		r := newRoom(id, path)
		r.Key, r.CreatedAt, r.UpdatedAt = key, at(created), at(created)
		return r
	}
	ana, ben := clone("room_ana", "/home/ana/api", 20), clone("room_ben", "/srv/ben/api", 10)
	old := clone("room_old", "/home/ana/api", 5)
	old.State, old.ClosedAt = stick.StateClosed, at(8)
	nested := clone("room_nested", "/home/ana/api/svc", 30)
	nested.Key = key + "/-/svc"
	other := clone("room_other", "/home/ana/web", 1)
	other.Key = "github.com/acme/web"
	local := newRoom("room_local", "/home/ana/notes")
	local.Key = "local:host-1:/home/ana/notes"
	createRooms(e, ana, ben, old, nested, other, local, newRoom("room_nokey", "/w/nokey"))
	for _, tc := range []struct {
		key    string
		closed bool
		want   []string
	}{
		{key, false, []string{"room_ben", "room_ana"}},
		{key, true, []string{"room_old", "room_ben", "room_ana"}},
		{key + "/-/svc", false, []string{"room_nested"}},
		{"github.com/acme/web", false, []string{"room_other"}},
		{local.Key, false, []string{"room_local"}},
		{"github.com/acme", true, nil},
		{"github.com/acme/api/", true, nil},
	} {
		got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsByKey(tc.key, tc.closed) })
		if ids := idsInOrder(got); !slices.Equal(ids, tc.want) {
			e.t.Errorf("RoomsByKey(%q, closed %v) = %q, want %q (oldest first)", tc.key, tc.closed, ids, tc.want)
		}
	}
	got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsByKey(key, false) })
	for _, r := range got {
		want := ana
		if r.ID == ben.ID {
			want = ben
		}
		mustEqual(e, "a room RoomsByKey found", r, want, normRoom)
	}
}

// RoomsNamed finds the rooms of one name, or every named room for "",
// oldest first, closed ones only when asked; never a room of a path.
func testRoomsNamed(e *env) {
	named := func(id, name string, created int) stick.Room {
		r := newRoom(id, "")
		r.Name, r.CreatedAt, r.UpdatedAt = name, at(created), at(created)
		return r
	}
	review := named("room_review", "release-1.4-review", 20)
	earlier := named("room_review_old", "release-1.4-review", 5)
	earlier.State, earlier.ClosedAt = stick.StateClosed, at(9)
	triage := named("room_triage", "triage", 10)
	createRooms(e, review, earlier, triage, newRoom("room_path", "/w/release-1.4-review"))
	for _, tc := range []struct {
		name   string
		closed bool
		want   []string
	}{
		{"release-1.4-review", false, []string{"room_review"}},
		{"release-1.4-review", true, []string{"room_review_old", "room_review"}},
		{"triage", false, []string{"room_triage"}},
		{"release-1.4", true, nil},
		{"", false, []string{"room_triage", "room_review"}},
		{"", true, []string{"room_review_old", "room_triage", "room_review"}},
	} {
		got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsNamed(tc.name, tc.closed) })
		if ids := idsInOrder(got); !slices.Equal(ids, tc.want) {
			e.t.Errorf("RoomsNamed(%q, closed %v) = %q, want %q (oldest first)", tc.name, tc.closed, ids, tc.want)
		}
	}
	got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsNamed("triage", false) })
	if len(got) == 1 {
		mustEqual(e, "the room RoomsNamed found", got[0], triage, normRoom)
	}
}

// A named room has no path: no lookup by path finds it, and a listing of
// every room ("") gives it after the rooms of paths.
func testNamedRoomsHaveNoPath(e *env) {
	r := newRoom("room_named", "")
	r.Name = "triage"
	createRooms(e, r, newRoom("room_w", "/w"), newRoom("room_wa", "/w/a"))
	if got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsAt([]string{"", "/w"}, true) }); !slices.Equal(roomIDs(got), []string{"room_w"}) {
		e.t.Errorf("RoomsAt(\"\", /w) = %q, want only room_w: a named room has no path", roomIDs(got))
	}
	if got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsUnder("/", true) }); !slices.Equal(roomIDs(got), []string{"room_w", "room_wa"}) {
		e.t.Errorf("RoomsUnder(/) = %q, want the rooms of paths only", roomIDs(got))
	}
	got := read(e, func(tx stick.Tx) ([]stick.Room, error) { return tx.RoomsUnder("", false) })
	if ids := idsInOrder(got); len(ids) != 3 || ids[2] != "room_named" {
		e.t.Errorf("RoomsUnder(\"\") = %q, want every room, the named one after the rooms of paths", ids)
	}
}

// idsInOrder returns the ids of rooms in the order given.
func idsInOrder(rooms []stick.Room) []string {
	var ids []string
	for _, r := range rooms {
		ids = append(ids, r.ID)
	}
	return ids
}
