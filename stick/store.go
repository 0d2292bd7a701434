package stick

import (
	"context"
	"time"

	"github.com/stickhq/stick/procid"
)

// Store persists rooms, members and events. Package store implements it on
// SQLite; every implementation must pass the same behaviour tests.
//
// Update runs fn in one write transaction that takes the write lock before it
// reads (BEGIN IMMEDIATE), so every read-check-write in fn is atomic across
// processes. If fn returns an error the transaction rolls back and Update
// returns that error. A lock that cannot be had within the busy timeout
// yields CodeDBBusy. View runs fn in a read transaction.
//
// Changed returns a channel that is closed at the next commit made by any
// process or connection after the call; a store may close it spuriously, but
// must not miss a commit for longer than its fallback poll interval.
//
// Rung returns a channel that is closed at the next commit that rang the
// bell of agent in room (agent "" names the room's own bell, see Tx.Ring),
// or spuriously; nil when the store cannot tell, and then the caller waits
// on Changed. A bell may be missed (its writer died between commit and
// ring), so its waiters must also re-read the room now and then. Bells let
// a commit wake only the waiters it concerns.
type Store interface {
	Update(ctx context.Context, fn func(Tx) error) error
	View(ctx context.Context, fn func(Tx) error) error
	Changed() <-chan struct{}
	Rung(room, agent string) <-chan struct{}
	Close() error
}

// A BriefViewer is a Store that can run a brief read where it is cheapest
// for the process that asks: a few rows, such as a heartbeat's check or a
// waiter's look at its room. The SQLite store runs it on the connection
// that writes when no write of the process is under way, where the
// process's own last commit left the page cache warm, instead of on a
// connection whose cache every commit empties. A read that may take long
// (a search, an export) uses View, so it never holds up a writer.
type BriefViewer interface {
	BriefView(ctx context.Context, fn func(Tx) error) error
}

// briefView runs fn as a brief read (see BriefViewer), or with View when
// the store has no such read.
func (s *Service) briefView(ctx context.Context, fn func(Tx) error) error {
	if bv, ok := s.store.(BriefViewer); ok {
		return bv.BriefView(ctx, fn)
	}
	return s.store.View(ctx, fn)
}

// Tx is the set of reads and writes available inside a transaction. Write
// methods may only be called inside Update.
type Tx interface {
	// Room returns the room with the given id; ok is false when there is none.
	Room(id string) (r Room, ok bool, err error)
	// RoomsAt returns the rooms whose path is one of paths, closed rooms only if includeClosed.
	RoomsAt(paths []string, includeClosed bool) ([]Room, error)
	// RoomsUnder returns the rooms whose path is strictly below dir, or every room when dir is ""
	// (named rooms after the rooms of paths).
	RoomsUnder(dir string, includeClosed bool) ([]Room, error)
	// RoomsByKey returns the rooms whose Key is key, oldest first, closed rooms only if includeClosed.
	RoomsByKey(key string, includeClosed bool) ([]Room, error)
	// RoomsNamed returns the rooms whose Name is name, or every named room when name is "",
	// oldest first, closed rooms only if includeClosed.
	RoomsNamed(name string, includeClosed bool) ([]Room, error)
	// CreateRoom inserts a new room.
	CreateRoom(r Room) error
	// SaveRoom overwrites the stored projection of an existing room.
	SaveRoom(r Room) error

	// Members returns a room's members in sequence (ordinal) order.
	Members(roomID string) ([]Member, error)
	// SaveMember inserts or replaces a member.
	SaveMember(m Member) error
	// DeleteMember removes a member; it is not an error if there is none.
	DeleteMember(roomID, agentID string) error

	// AppendEvent appends e, assigning its Seq (and ID if empty), and returns it.
	AppendEvent(e Event) (Event, error)
	// Event returns the event with the given sequence number in the room.
	Event(roomID string, seq int64) (e Event, ok bool, err error)
	// Events returns up to limit events of the room with Seq > after, oldest first.
	Events(roomID string, after int64, limit int) ([]Event, error)
	// EventsFor is Events without the events member skipFrom appended
	// ("" skips none).
	EventsFor(roomID string, after int64, limit int, skipFrom string) ([]Event, error)
	// LastEvent returns the room's newest event of one of the given types (any type if none).
	LastEvent(roomID string, types ...EventType) (e Event, ok bool, err error)
	// LastSeq returns the Seq of the room's newest event, 0 if it has none.
	LastSeq(roomID string) (int64, error)
	// LatestEvents returns the room's newest limit events, oldest first.
	LatestEvents(roomID string, limit int) ([]Event, error)
	// LastEventAt returns when the room's newest event was appended, the
	// zero time if it has none; a store answers it without reading the
	// room's log.
	LastEventAt(roomID string) (time.Time, error)
	// SentEvent returns the event that member from appended to the room
	// with the given client message id, if any.
	SentEvent(roomID, from, clientMessageID string) (e Event, ok bool, err error)

	// Doc returns the given version of the room's document, 0 for the
	// current one; ok is false when there is no such version.
	Doc(roomID string, version int64) (d Document, ok bool, err error)
	// SaveDoc stores d as the room's current document and appends it to
	// the document's history; d.Version must be the next version.
	SaveDoc(d Document) error
	// DocHistory returns every version of the room's document, oldest
	// first, without content.
	DocHistory(roomID string) ([]DocVersion, error)
	// Search returns up to q.Limit entries of the search index that match
	// m and q's filters, best first. Inside Update
	// the store may first bring its index up to date (a store may index
	// lazily); inside View it searches what is indexed. Errors:
	// search_unavailable when the store has no full-text index or is still
	// building it.
	Search(m SearchMatch, q SearchQuery) ([]SearchHit, error)

	// Ring asks for the bell of agent in room (agent "" for the room's own
	// bell) to ring once the transaction commits; nothing rings if it
	// rolls back.
	Ring(roomID, agentID string)
}

// Clock tells the time and makes timers, so tests can drive TTLs without sleeping.
type Clock interface {
	Now() time.Time
	// Timer returns a channel that receives once d has elapsed on this clock, and a stop function.
	Timer(d time.Duration) (c <-chan time.Time, stop func())
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// Timer wraps time.NewTimer.
func (SystemClock) Timer(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// Liveness judges whether the exact process behind a member still runs. It
// must answer Gone only on proof (pid absent, start time differs, other boot)
// and Unknown when facts are missing or belong to another host.
type Liveness interface {
	Check(p Process) procid.Status
}

// ExitWatcher is optionally implemented by a Liveness that can report a
// process's exit as it happens (pidfd on Linux), so waiters see owner_gone at
// once instead of at their next fallback poll.
type ExitWatcher interface {
	Watch(ctx context.Context, p Process) (<-chan struct{}, bool)
}
