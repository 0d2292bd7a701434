package stick

import (
	"strconv"
	"time"
)

// The caps on how long one call blocks and how much one page holds. They
// are the same for every frontend and transport: a frontend may choose a
// smaller default of its own (the CLI's 'stick wait' asks again until the
// turn comes), never a larger cap, and it states them in its help and
// schemas from these constants rather than in words of its own.
const (
	// MaxWaitLimit is the longest one blocking call waits: WaitForTurn's
	// MaxWait, Sync's Wait, and a policy's WaitMaxWait.
	MaxWaitLimit = 10 * time.Minute

	// DefaultEventLimit is the page size of RoomEvents, FollowEvents and
	// TailEvents when none is asked for; MaxEventLimit the largest, and
	// the most notes one Sync may post.
	DefaultEventLimit = 50
	MaxEventLimit     = 1000

	// DefaultSyncItems is the page size of Sync when none is asked for
	// (at most MaxEventLimit).
	DefaultSyncItems = 50

	// DefaultSearchLimit is the number of hits of Search when none is
	// asked for; MaxSearchLimit the most.
	DefaultSearchLimit = 20
	MaxSearchLimit     = 200
	// MaxSearchRooms bounds SearchQuery.InRooms as a caller gives it.
	MaxSearchRooms = 1000
)

// WaitSeconds converts a wait given in whole seconds, as a frontend takes
// Sync's wait (wait_seconds), checking it against MaxWaitLimit before the
// conversion so that no value overflows a time.Duration.
//
// Errors: invalid_argument (wait_seconds).
func WaitSeconds(n int64) (time.Duration, error) {
	if n < 0 || n > int64(MaxWaitLimit/time.Second) {
		return 0, waitSecondsErr(strconv.FormatInt(n, 10))
	}
	return time.Duration(n) * time.Second, nil
}

// waitSecondsErr is the refusal of a wait of got seconds.
func waitSecondsErr(got string) *Error {
	return invalidArg("wait_seconds", "wait_seconds must be between 0 and %d seconds (%v), got %s seconds",
		int(MaxWaitLimit/time.Second), MaxWaitLimit, got)
}
