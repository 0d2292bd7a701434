package chat

import (
	"context"
	"time"

	"github.com/stickhq/stick/stick"
)

// Backend is what the console needs of a room: its status, its log and a
// way to post to it. The CLI implements it over stick.Service; tests over
// a fake. Its methods are called from the program's command goroutines,
// at most one call of each method at a time.
type Backend interface {
	// Status returns the room's status: its members in sequence order
	// (status, handle, standby, wake), the holder and the reserved
	// recipient.
	Status(ctx context.Context) (stick.RoomStatus, error)
	// Events returns the events of the room's log after the cursor after,
	// oldest first, and the cursor to pass next. When nothing is new it
	// waits up to wait for the next event and then returns none, with
	// next equal to after. With after 0 it may return only the newest
	// events of a long log: the recent history.
	Events(ctx context.Context, after int64, wait time.Duration) (events []stick.Event, next int64, err error)
	// Post posts text as a note. to names its recipients as the user
	// typed them (handles, agent ids, display-name prefixes), for the room
	// to resolve: an unknown name is an error naming the members, and
	// nothing is posted. interrupt asks the recipients' waits to end at
	// once.
	Post(ctx context.Context, text string, to []string, interrupt bool) (stick.PostResult, error)
	// Self is the agent id the console acts as.
	Self() string
}
