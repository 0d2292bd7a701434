package stick

import (
	"context"
	"time"

	"github.com/stickhq/stick/procid"
)

// Store persists rooms, members, events, documents and a hub's tokens.
// Package store implements it on a local database file; another store (a
// database server shared by several hosts) must give every guarantee below, since
// the Service's rules rely on them and on nothing else, and every
// implementation must pass the same behaviour tests: the conformance
// suite in package stick/storetest, which a store runs from its own tests.
//
// Update runs fn in one serializable write transaction that takes the
// store's write lock before its first read. No other write transaction,
// of this process or of any other process or host sharing the store, runs
// between fn's reads and its writes, so every read-check-write in fn is
// atomic: write transactions take effect one at a time, in the order they
// got the lock. If fn returns an error, nothing fn wrote is kept and
// Update returns it: a coded *Error as it is, so that it reaches the
// caller unchanged, and any other error (which may be the store's own
// failure that a Tx method returned) as it is or wrapped in the store's
// coded error, where errors.Is finds it. Otherwise the writes are
// committed, and durable against a crash of the process, before Update
// returns nil. A store may run fn again after a transient failure (a
// lock it lost before the first write, say), so fn must act only
// through its Tx.
//
// View runs fn in a read transaction: a consistent snapshot of committed
// data that sees every commit made before View was called. Write methods
// of Tx fail inside it. A read transaction never holds up a writer (nor
// waits for one), so a long read such as a search or an export never
// delays a turn.
//
// Errors of Update and View: fn's error; db_busy when the write lock (or,
// for View, a snapshot) cannot be had within the store's busy timeout;
// canceled when ctx ends first; data_dir_unusable, db_corrupt and internal
// when the store itself fails (its storage cannot be written, is damaged,
// or the store is closed).
//
// Changed returns a channel that is closed at the next commit, made by
// any process or host sharing the store, after the call. A store may
// close it spuriously (a waiter then reads again and finds nothing new),
// but must not miss a commit for longer than its fallback poll interval:
// a waiter learns of a commit it was not woken for at most that late.
//
// Rung returns a channel that is closed at the next commit that rang the
// bell of agent in room (agent "" names the room's own bell, see Tx.Ring),
// or spuriously; nil when the store cannot tell, and then the caller waits
// on Changed. A bell rings only after the commit of the transaction that
// asked for it, once that commit is visible to every reader, and never
// for a transaction that rolled back. A bell may be missed (its writer
// died between commit and ring), so its waiters must also re-read the
// room now and then. Bells let a commit wake only the waiters it
// concerns.
//
// Close releases the store after any write in flight; transactions begun
// afterwards fail.
type Store interface {
	Update(ctx context.Context, fn func(Tx) error) error
	View(ctx context.Context, fn func(Tx) error) error
	Changed() <-chan struct{}
	Rung(room, agent string) <-chan struct{}
	Close() error
}

// A BriefViewer is a Store that can run a brief read where it is cheapest
// for the process that asks: a few rows, such as a heartbeat's check or a
// waiter's look at its room. BriefView gives View's guarantees and
// errors, but may hold off this process's own writers while fn runs, so fn
// must be short; a read that may take long (a search, an export) uses
// View, so it never holds up a writer. Package store, for one, reads on
// the connection its writes use when none is under way, whose cache the
// process's own last commit left warm.
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

// A SearchIndexer is a Store that indexes its log for search lazily, to
// keep writes cheap, so that a Tx.Search may not yet see the latest
// events. CatchUpSearch indexes what was committed before the call and is
// not indexed yet: a View begun after it returns nil searches every event
// and document committed before CatchUpSearch was called. It takes the
// write lock only when there is something to index. When the index cannot
// be caught up at once (the store has none, or is still building it), it
// returns nil and leaves Tx.Search to report search_unavailable. Service.
// Search calls it before it searches.
//
// Errors: db_busy, canceled, and the store's own failures, as for Update.
type SearchIndexer interface {
	CatchUpSearch(ctx context.Context) error
}

// Tx is the set of reads and writes available inside a transaction. Reads
// see the transaction's own writes. Write methods may only be called
// inside Update; inside View they fail. A method's error (other than a
// coded *Error it documents) is the store's own failure: fn returns it,
// and the transaction rolls back.
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
	// SaveRoom overwrites the stored projection of an existing room: its
	// turn, lease, policy, concluder, state and times. A room's id, path, topic, key,
	// name and creation time never change; SaveRoom keeps them as created.
	SaveRoom(r Room) error

	// Members returns a room's members in sequence (ordinal) order.
	Members(roomID string) ([]Member, error)
	// SaveMember inserts or replaces a member.
	SaveMember(m Member) error
	// DeleteMember removes a member; it is not an error if there is none.
	DeleteMember(roomID, agentID string) error

	// AppendEvent appends e, assigning its Seq (and ID if empty), and
	// returns it. Seq is greater than that of every event committed
	// before, in any room: since write transactions take effect one at a
	// time, events become visible in Seq order, and a reader that saw an
	// event never later finds a new one with a smaller Seq (cursors rely
	// on it).
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
	// EventsBefore returns the room's newest limit events whose Seq is
	// below before, oldest first: the page of a log read backwards.
	EventsBefore(roomID string, before int64, limit int) ([]Event, error)
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
	// Search returns up to q.Limit entries that match m and q's filters
	// (RoomID, Type, From), best first; q.Query is the text m was parsed
	// from, for messages only. The entries are the text SearchText gives
	// of each event (Type: HitType; From: the event's author) and the
	// Paragraphs of each room's current document (Type: DocumentHit;
	// From: the author of the version that wrote the paragraph), and
	// nothing else: a document's earlier versions are not searched. A
	// SearchIndexer may search only what it has indexed. Each hit's
	// Snippet is the best passage of its entry with every match between
	// HighlightStart and HighlightEnd and the entry's own "**" escaped.
	// Errors: invalid_argument (query) when m fails Validate;
	// search_unavailable when the store has no full-text index, or its
	// index is out of date or still being built.
	Search(m SearchMatch, q SearchQuery) ([]SearchHit, error)

	// ChannelStats returns, for each channel of the room that holds notes,
	// how many notes it keeps, the bytes of their texts and when the
	// newest was posted, in no particular order. A note with no channel
	// counts in DefaultChannel.
	ChannelStats(roomID string) ([]ChannelStat, error)
	// PruneNotes deletes the room's oldest notes of channel (a note with
	// no channel is in DefaultChannel) past any of the limits: more than
	// maxMessages notes, more than maxBytes bytes of text, or posted
	// before olderThan (a zero limit or time sets none). It deletes notes
	// only, never another type of event, and the search index forgets
	// them. It returns how many it deleted. A store may keep the newest
	// event of the whole store, a note past the limits too, until another
	// event is appended: a store that numbers a new event one past the
	// greatest Seq it holds would otherwise give a deleted note's Seq to
	// the next event, which cursors past it would miss.
	PruneNotes(roomID, channel string, maxMessages int, maxBytes int64, olderThan time.Time) (int, error)
	// History returns the newest q.Limit events of q.RoomID that match
	// q's filters, oldest first (see HistoryQuery).
	History(q HistoryQuery) ([]Event, error)

	// Ring asks for the bell of agent in room (agent "" for the room's own
	// bell) to ring once the transaction commits; nothing rings if it
	// rolls back, and nothing inside View.
	Ring(roomID, agentID string)

	// CreateToken inserts a new token with hash, the hash of its secret
	// (HashSecret). The Service gives a token id and a hash that no
	// token has, and a name that no unrevoked token has.
	CreateToken(t Token, hash TokenHash) error
	// TokenByHash returns the token whose secret has the hash, revoked
	// and expired ones too; ok is false when there is none.
	TokenByHash(hash TokenHash) (t Token, ok bool, err error)
	// Tokens returns every token, revoked and expired ones too, oldest
	// first (in the order they were created).
	Tokens() ([]Token, error)
	// SaveToken stores the RevokedAt and LastUsedAt of an existing token.
	// Its other fields and its hash never change; SaveToken keeps them as
	// created.
	SaveToken(t Token) error

	// HubSettings returns the hub's settings, the zero HubSettings when
	// none was ever saved.
	HubSettings() (HubSettings, error)
	// SaveHubSettings stores s whole, in place of the settings saved
	// before; a field that is "" is stored as not set.
	SaveHubSettings(s HubSettings) error

	// Replay returns the answer kept under key (KeepReplay); ok is false
	// when there is none.
	Replay(key string) (r Replay, ok bool, err error)
	// KeepReplay keeps r under r.Key, replacing what was kept under it,
	// and forgets every answer kept before expireBefore.
	KeepReplay(r Replay, expireBefore time.Time) error
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

// GraceLiveness is optionally implemented by a Liveness that judges some
// processes by a connection that lives as long as they do, rather than by
// the operating system: a hub judges a member behind a proxy ('stick mcp
// --server') by the proxy's liveness stream. Such a connection may drop
// and come back (a network blip, the hub restarting), so a Service asks
// with the room's Policy.ProxyGrace, how long it may be down before its
// process counts as gone, and uses these methods instead of Check and
// Watch. Since a connection can come back, a Gone it answers is not
// remembered for good, as one of Check is.
type GraceLiveness interface {
	// CheckWithin is Check for a process whose connection may be down for
	// grace before it is proven Gone: Alive while it is up, Gone on the
	// other end's word or once it has been down for grace, Unknown
	// otherwise. Every other process is judged as Check judges it.
	CheckWithin(p Process, grace time.Duration) procid.Status
	// WatchWithin is ExitWatcher.Watch with the same grace: the channel
	// closes when CheckWithin would answer Gone. ok is false when it
	// cannot watch p; the waiter then polls.
	WatchWithin(ctx context.Context, p Process, grace time.Duration) (<-chan struct{}, bool)
}
