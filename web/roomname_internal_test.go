package web

import "testing"

// A room is called by its name, else its repository's key, else its
// path: a local key (host id and path) is no name for people.
func TestRoomName(t *testing.T) {
	for _, tc := range []struct {
		name, key, path, id string
		want, kind          string
	}{
		{"triage", "github.com/acme/api", "/src/api", "room_1", "triage", "named room"},
		{"", "github.com/acme/api", "/src/api", "room_1", "github.com/acme/api", "workspace"},
		{"", "local:3f2a9c:/home/ana/notes", "/home/ana/notes", "room_1", "/home/ana/notes", "folder"},
		{"", "", "", "room_1", "room_1", "room"},
		{"", "", "/srv/\x1b[31mx", "room_1", `/srv/\x1b[31mx`, "folder"},
	} {
		if got, kind := roomName(tc.name, tc.key, tc.path, tc.id); got != tc.want || kind != tc.kind {
			t.Errorf("roomName(%q, %q, %q) = %q, %q; want %q, %q", tc.name, tc.key, tc.path, got, kind, tc.want, tc.kind)
		}
	}
}
