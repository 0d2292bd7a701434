package stick

import (
	"regexp"
	"strings"
)

// A room may be named by people instead of being found by a path: a team's
// session ("release-1.4-review") that members join by its name from
// anywhere. A name is unique among open rooms: joining the name of an open
// room joins it, and once that room is closed the next join by the name
// starts a new room, as a join at a closed room's path does. Named rooms
// are listed, read, closed, exported and searched like any other.

// MaxRoomNameLen bounds a room name.
const MaxRoomNameLen = 64

// RoomNamePattern is the rule a room name follows: 1 to 64 lower-case
// letters, digits, ".", "-" and "_", starting with a letter or a digit.
// A name may not start with "room_" either, which room ids start with, so
// a value that could be either is never ambiguous.
const RoomNamePattern = `^[a-z0-9][a-z0-9._-]{0,63}$`

var roomNameRE = regexp.MustCompile(RoomNamePattern)

// roomIDPrefix starts every room id.
const roomIDPrefix = "room_"

// ValidRoomName reports whether name follows RoomNamePattern and does not
// start with "room_".
func ValidRoomName(name string) bool {
	return roomNameRE.MatchString(name) && !strings.HasPrefix(name, roomIDPrefix)
}

// checkRoomName returns invalid_argument on field naming the rule when name
// is no valid room name.
func checkRoomName(field, name string) error {
	if ValidRoomName(name) {
		return nil
	}
	if err := checkLen(field, name, MaxRoomNameLen); err != nil {
		return err
	}
	e := invalidArg(field, "%s %s is no room name: a name is 1 to %d lower-case letters, digits, '.', '-' and '_', starting with a letter or a digit, and not with %q",
		field, Quote(name), MaxRoomNameLen, roomIDPrefix)
	if lower := strings.ToLower(name); lower != name && ValidRoomName(lower) {
		return e.WithHint("write it in lower case: %s", lower)
	}
	return e.WithHint("for example release-1.4-review")
}
