package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Floor runs, on a database file of its own, transactions shaped like a
// claim and a release, with nothing of stick's logic: no writer lock
// between processes, no liveness checks, no wake-ups, no rules. It uses
// the driver, the per-connection pragmas and the statements of a Store
// (cached like a Store's), so its time per transaction is the floor under
// a claim or a release: what this machine and these dependencies need for
// the same reads and writes. A benchmark measures it beside stick to tell
// stick's own cost from the database's. It is not safe for concurrent use.
type Floor struct {
	conn *sqlite.Conn
	turn int64
}

// floorRoom is the one room a floor database holds.
const floorRoom = "room_floor"

// floorSchema is the part of the store's schema a claim and a release
// touch: rooms and events with the store's columns, keys and indexes.
const floorSchema = `CREATE TABLE IF NOT EXISTS rooms (
	room_id                   TEXT PRIMARY KEY,
	canonical_path            TEXT NOT NULL,
	topic                     TEXT NOT NULL DEFAULT '',
	state                     TEXT NOT NULL CHECK (state = 'idle' OR state = 'owned' OR state = 'reserved' OR state = 'closed'),
	sequence_index            INTEGER NOT NULL DEFAULT 0,
	owner                     TEXT,
	reserved_for              TEXT,
	pending_handoff_event_seq INTEGER,
	grant_event_seq           INTEGER,
	turn_id                   INTEGER NOT NULL DEFAULT 0,
	lease_id                  TEXT,
	lease_expires_at          INTEGER,
	claim_expires_at          INTEGER,
	owner_lease_ttl_ms        INTEGER,
	claim_ttl_ms              INTEGER,
	heartbeat_interval_ms     INTEGER,
	presence_ttl_ms           INTEGER,
	wait_max_wait_ms          INTEGER,
	created_at                INTEGER NOT NULL,
	updated_at                INTEGER NOT NULL,
	closed_at                 INTEGER,
	room_key                  TEXT NOT NULL DEFAULT '',
	room_name                 TEXT,
	concluder                 TEXT,
	proxy_grace_ms            INTEGER,
	channels_json             TEXT
) STRICT;
CREATE UNIQUE INDEX IF NOT EXISTS rooms_open_path_idx ON rooms (canonical_path, topic) WHERE closed_at IS NULL AND canonical_path <> '';
CREATE INDEX IF NOT EXISTS rooms_path_idx ON rooms (canonical_path);
CREATE UNIQUE INDEX IF NOT EXISTS rooms_open_name_idx ON rooms (room_name) WHERE closed_at IS NULL AND room_name IS NOT NULL;
CREATE INDEX IF NOT EXISTS rooms_name_idx ON rooms (room_name, created_at) WHERE room_name IS NOT NULL;
CREATE INDEX IF NOT EXISTS rooms_key_idx ON rooms (room_key, created_at);
CREATE TABLE IF NOT EXISTS events (
	event_seq         INTEGER PRIMARY KEY,
	event_id          TEXT NOT NULL,
	room_id           TEXT NOT NULL REFERENCES rooms (room_id),
	turn_id           INTEGER NOT NULL,
	event_type        TEXT NOT NULL,
	from_agent_id     TEXT,
	to_agent_id       TEXT,
	handoff_json      TEXT,
	reason            TEXT,
	text              TEXT,
	ref_event_seq     INTEGER,
	data_json         TEXT,
	created_at        INTEGER NOT NULL,
	message_type      TEXT,
	client_message_id TEXT,
	recipients        TEXT,
	interrupt         INTEGER NOT NULL DEFAULT 0,
	channel           TEXT
);
CREATE INDEX IF NOT EXISTS events_room_seq_idx ON events (room_id, event_seq);
CREATE INDEX IF NOT EXISTS events_channel_idx ON events (room_id, channel, event_seq) WHERE event_type = 'note';
CREATE UNIQUE INDEX IF NOT EXISTS events_client_message_idx ON events (room_id, from_agent_id, client_message_id)
	WHERE client_message_id IS NOT NULL;
INSERT OR IGNORE INTO rooms (room_id, canonical_path, room_key, state, owner_lease_ttl_ms, claim_ttl_ms, heartbeat_interval_ms,
	presence_ttl_ms, wait_max_wait_ms, proxy_grace_ms, created_at, updated_at)
	VALUES ('room_floor', '/floor/workspace', 'github.com/acme/floor', 'idle', 120000, 30000, 20000, 90000, 60000, 10000, 0, 0);
`

// The floor's statements: the store's room read, room update (SaveRoom's
// columns) and event append (AppendEvent's).
const (
	floorSelect = "SELECT " + roomCols + " FROM rooms WHERE room_id = ?1"
	floorUpdate = `UPDATE rooms SET state = ?2, sequence_index = ?3, owner = ?4, reserved_for = ?5,
		pending_handoff_event_seq = ?6, grant_event_seq = ?7, turn_id = ?8, lease_id = ?9, lease_expires_at = ?10,
		claim_expires_at = ?11, owner_lease_ttl_ms = 120000, claim_ttl_ms = 30000, heartbeat_interval_ms = 20000,
		presence_ttl_ms = 90000, wait_max_wait_ms = 60000, updated_at = ?12, concluder = NULL, proxy_grace_ms = 10000,
		channels_json = NULL WHERE room_id = ?1`
)

var (
	floorInsert = "INSERT INTO events (" + eventCols[len("event_seq, "):] + ") VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)"
)

// floorHandoff is a release's handoff as the store keeps it: the size of
// a short real one.
const floorHandoff = `{"status":"refactored the parser; tests pass","next_action":"review cmd/ and claim the next turn"}`

// OpenFloor creates (or opens) a floor database at path, with the
// store's pragmas and the tables a claim and a release touch.
func OpenFloor(path string) (*Floor, error) {
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		return nil, fmt.Errorf("open floor database %s: %w", path, err)
	}
	f := &Floor{conn: conn}
	if err := f.setUp(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("floor database %s: %w", path, err)
	}
	return f, nil
}

func (f *Floor) setUp() error {
	for _, p := range connPragmas(DefaultBusyTimeout) {
		mode := ""
		err := sqlitex.ExecuteTransient(f.conn, p, &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
			mode = st.ColumnText(0)
			return nil
		}})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if strings.HasPrefix(p, "PRAGMA journal_mode") && !strings.EqualFold(mode, "wal") {
			return fmt.Errorf("journal mode stays %q, not wal", mode)
		}
	}
	if err := sqlitex.ExecuteScript(f.conn, floorSchema, nil); err != nil {
		return err
	}
	return sqlitex.ExecuteTransient(f.conn, "SELECT turn_id FROM rooms WHERE room_id = ?",
		&sqlitex.ExecOptions{Args: []any{floorRoom}, ResultFunc: func(st *sqlite.Stmt) error {
			f.turn = st.ColumnInt64(0)
			return nil
		}})
}

// Close closes the floor's connection.
func (f *Floor) Close() error { return f.conn.Close() }

// Claim runs one transaction shaped like a claim: BEGIN IMMEDIATE, read
// the room, give it to an owner with a new turn and lease, append a claim
// event, COMMIT.
func (f *Floor) Claim() error {
	f.turn++
	return f.tx(true)
}

// Release runs one transaction shaped like a release: BEGIN IMMEDIATE,
// read the room, reserve it for the next member, append a release event
// with a handoff, COMMIT.
func (f *Floor) Release() error { return f.tx(false) }

func (f *Floor) tx(claim bool) (err error) {
	end, err := sqlitex.ImmediateTransaction(f.conn)
	if err != nil {
		return err
	}
	defer end(&err)
	sel, err := f.conn.Prepare(floorSelect)
	if err != nil {
		return err
	}
	sel.BindText(1, floorRoom)
	rows := 0
	for {
		row, err := sel.Step()
		if err != nil {
			sel.Reset()
			return err
		}
		if !row {
			break
		}
		rows++
		// Every column is read, as the store reads a room.
		for i := range sel.ColumnCount() {
			if sel.ColumnType(i) == sqlite.TypeText {
				_ = sel.ColumnText(i)
			} else {
				_ = sel.ColumnInt64(i)
			}
		}
	}
	if err := sel.Reset(); err != nil {
		return err
	}
	if rows != 1 {
		return fmt.Errorf("floor room: %d rows, want 1", rows)
	}
	now := time.Now().UnixMilli()
	v := f.values(claim, now)
	up, err := f.conn.Prepare(floorUpdate)
	if err != nil {
		return err
	}
	bind(up, v.room)
	if err := step(up); err != nil {
		return err
	}
	ins, err := f.conn.Prepare(floorInsert)
	if err != nil {
		return err
	}
	bind(ins, v.event)
	return step(ins)
}

// floorValues are one transaction's bound values, in parameter order.
type floorValues struct{ room, event []any }

// values returns the room update's and the event's values for the
// current turn; nil is NULL.
func (f *Floor) values(claim bool, now int64) floorValues {
	lease := fmt.Sprintf("ls_%016x", f.turn)
	seq := 2 * f.turn
	if claim {
		seq--
		return floorValues{
			room: []any{floorRoom, "owned", f.turn % 2, "agent-a", nil, nil, seq, f.turn, lease, now + 120000, nil, now},
			event: []any{fmt.Sprintf("evt_%032x", seq), floorRoom, f.turn, "claim", "agent-a", nil, nil,
				"reserved_for_you", nil, nil, nil, now, nil, nil, nil, int64(0), nil},
		}
	}
	return floorValues{
		room: []any{floorRoom, "reserved", f.turn % 2, nil, "agent-b", seq, nil, f.turn, nil, nil, now + 30000, now},
		event: []any{fmt.Sprintf("evt_%032x", seq), floorRoom, f.turn, "release", "agent-a", "agent-b", floorHandoff,
			nil, nil, nil, nil, now, nil, nil, nil, int64(0), nil},
	}
}

// bind binds values to parameters 1, 2, ...
func bind(st *sqlite.Stmt, values []any) {
	for i, v := range values {
		switch v := v.(type) {
		case nil:
			st.BindNull(i + 1)
		case string:
			st.BindText(i+1, v)
		case int64:
			st.BindInt64(i+1, v)
		}
	}
}

// step runs a statement that returns no rows and resets it.
func step(st *sqlite.Stmt) error {
	_, err := st.Step()
	if rerr := st.Reset(); err == nil {
		err = rerr
	}
	st.ClearBindings()
	return err
}

// FloorScript returns SQL text that runs the floor's pragmas and schema,
// then n claim and release transaction pairs with the same statements and
// values as a Floor's: fed to the sqlite3 command-line tool, it measures
// the same work through SQLite's C library, for comparison.
func FloorScript(n int) string {
	var b strings.Builder
	for _, p := range connPragmas(DefaultBusyTimeout) {
		b.WriteString(p + ";\n")
	}
	b.WriteString(floorSchema)
	f := &Floor{}
	now := time.Now().UnixMilli()
	for range n {
		f.turn++
		for _, claim := range []bool{true, false} {
			v := f.values(claim, now)
			b.WriteString("BEGIN IMMEDIATE;\n")
			b.WriteString(literal(floorSelect, []any{floorRoom}) + ";\n")
			b.WriteString(literal(floorUpdate, v.room) + ";\n")
			b.WriteString(literal(floorInsert, v.event) + ";\n")
			b.WriteString("COMMIT;\n")
		}
	}
	return b.String()
}

// literal replaces the numbered parameters ?1, ?2, ... of q with values
// as SQL literals, from the highest number down so ?1 leaves ?12 alone.
func literal(q string, values []any) string {
	for i := len(values) - 1; i >= 0; i-- {
		var lit string
		switch v := values[i].(type) {
		case nil:
			lit = "NULL"
		case string:
			lit = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		case int64:
			lit = strconv.FormatInt(v, 10)
		}
		q = strings.ReplaceAll(q, "?"+strconv.Itoa(i+1), lit)
	}
	return q
}
