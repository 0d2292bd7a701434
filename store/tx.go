package store

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/storecodec"
	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// tx implements stick.Tx on one connection inside an open transaction.
type tx struct {
	conn  *sqlite.Conn
	write bool
	rings []string // bells to ring after the commit
	// unbells are the bells of members the transaction removed, to
	// delete after the commit.
	unbells []string
	// noFTS makes Search report that full-text search is unavailable.
	noFTS bool
	// indexDue is set when an appended event crossed a multiple of
	// indexEvery: the transaction indexes the backlog before it commits.
	indexDue bool
	// backlog is set when the search index is further behind than a
	// transaction indexes by the way: the store then indexes it in the
	// background, whether the transaction commits or not.
	backlog bool
}

// Ring implements stick.Tx.Ring.
func (t *tx) Ring(room, agent string) {
	if t.write {
		t.rings = append(t.rings, bellName(room, agent))
	}
}

const roomCols = `room_id, canonical_path, topic, state, sequence_index, owner, reserved_for,
	pending_handoff_event_seq, grant_event_seq, turn_id, lease_id, lease_expires_at, claim_expires_at,
	owner_lease_ttl_ms, claim_ttl_ms, heartbeat_interval_ms, presence_ttl_ms, wait_max_wait_ms,
	created_at, updated_at, closed_at, room_key, room_name, concluder, proxy_grace_ms, channels_json`

// Room implements stick.Tx.Room.
func (t *tx) Room(id string) (stick.Room, bool, error) {
	rooms, err := t.rooms("SELECT "+roomCols+" FROM rooms WHERE room_id = ?", id)
	if err != nil || len(rooms) == 0 {
		return stick.Room{}, false, err
	}
	return rooms[0], true, nil
}

// RoomsAt implements stick.Tx.RoomsAt.
func (t *tx) RoomsAt(paths []string, includeClosed bool) ([]stick.Room, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	// Named rooms have the path ''; saying so lets the open-path index,
	// which leaves them out, serve the query.
	q := "SELECT " + roomCols + " FROM rooms WHERE canonical_path IN (" + strings.Repeat("?,", len(paths)-1) + "?) AND canonical_path <> ''"
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	args := make([]any, len(paths))
	for i, p := range paths {
		args[i] = p
	}
	return t.rooms(q+" ORDER BY canonical_path, created_at", args...)
}

// RoomsUnder implements stick.Tx.RoomsUnder.
func (t *tx) RoomsUnder(dir string, includeClosed bool) ([]stick.Room, error) {
	q := "SELECT " + roomCols + " FROM rooms WHERE 1"
	var args []any
	if dir != "" {
		// Paths strictly below dir sort between dir+sep and dir+(sep+1).
		sep := "/"
		if strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, `\`) {
			sep = ""
		} else if strings.Contains(dir, `\`) && !strings.Contains(dir, "/") {
			sep = `\`
		}
		lo := dir + sep
		hi := lo[:len(lo)-1] + string(rune(lo[len(lo)-1]+1))
		q += " AND canonical_path >= ? AND canonical_path < ? AND canonical_path <> ?"
		args = append(args, lo, hi, dir)
	}
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	if dir == "" {
		// Named rooms, whose path is '', after the rooms of paths.
		return t.rooms(q+" ORDER BY canonical_path = '', canonical_path, created_at", args...)
	}
	return t.rooms(q+" ORDER BY canonical_path, created_at", args...)
}

// RoomsByKey implements stick.Tx.RoomsByKey.
func (t *tx) RoomsByKey(key string, includeClosed bool) ([]stick.Room, error) {
	q := "SELECT " + roomCols + " FROM rooms WHERE room_key = ?"
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	return t.rooms(q+" ORDER BY created_at, rowid", key)
}

// RoomsNamed implements stick.Tx.RoomsNamed.
func (t *tx) RoomsNamed(name string, includeClosed bool) ([]stick.Room, error) {
	q := "SELECT " + roomCols + " FROM rooms WHERE room_name IS NOT NULL"
	var args []any
	if name != "" {
		q += " AND room_name = ?"
		args = append(args, name)
	}
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	return t.rooms(q+" ORDER BY created_at, rowid", args...)
}

func (t *tx) rooms(q string, args ...any) ([]stick.Room, error) {
	var out []stick.Room
	err := sqlitex.Execute(t.conn, q, &sqlitex.ExecOptions{Args: args, ResultFunc: func(st *sqlite.Stmt) error {
		var channels []stick.ChannelSpec
		if st.ColumnType(25) != sqlite.TypeNull {
			var err error
			if channels, err = storecodec.DecodeChannels(st.ColumnText(25)); err != nil {
				return fmt.Errorf("room %s: %w", st.ColumnText(0), err)
			}
		}
		out = append(out, stick.Room{
			ID: st.ColumnText(0), Path: st.ColumnText(1), Topic: st.ColumnText(2), State: stick.RoomState(st.ColumnText(3)),
			SequenceIndex: st.ColumnInt(4), Owner: st.ColumnText(5), ReservedFor: st.ColumnText(6),
			PendingHandoffSeq: st.ColumnInt64(7), GrantSeq: st.ColumnInt64(8), TurnID: st.ColumnInt64(9),
			LeaseID: st.ColumnText(10), LeaseExpiresAt: colTime(st, 11), ClaimExpiresAt: colTime(st, 12),
			Policy: stick.Policy{
				OwnerLeaseTTL: colMS(st, 13), ClaimTTL: colMS(st, 14), HeartbeatInterval: colMS(st, 15),
				PresenceTTL: colMS(st, 16), WaitMaxWait: colMS(st, 17), ProxyGrace: colMS(st, 24),
			},
			CreatedAt: colTime(st, 18), UpdatedAt: colTime(st, 19), ClosedAt: colTime(st, 20),
			Key: st.ColumnText(21), Name: st.ColumnText(22), Concluder: st.ColumnText(23), Channels: channels,
		})
		return nil
	}})
	return out, err
}

func roomArgs(r stick.Room) ([]any, error) {
	channels, err := storecodec.EncodeChannels(r.Channels)
	if err != nil {
		return nil, err
	}
	return []any{
		r.ID, r.Path, r.Topic, string(r.State), r.SequenceIndex, nullText(r.Owner), nullText(r.ReservedFor),
		nullInt(r.PendingHandoffSeq), nullInt(r.GrantSeq), r.TurnID, nullText(r.LeaseID),
		nullTime(r.LeaseExpiresAt), nullTime(r.ClaimExpiresAt),
		nullMS(r.Policy.OwnerLeaseTTL), nullMS(r.Policy.ClaimTTL), nullMS(r.Policy.HeartbeatInterval),
		nullMS(r.Policy.PresenceTTL), nullMS(r.Policy.WaitMaxWait),
		ms(r.CreatedAt), ms(r.UpdatedAt), nullTime(r.ClosedAt), r.Key, nullText(r.Name), nullText(r.Concluder),
		nullMS(r.Policy.ProxyGrace), nullText(channels),
	}, nil
}

// CreateRoom implements stick.Tx.CreateRoom.
func (t *tx) CreateRoom(r stick.Room) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	args, err := roomArgs(r)
	if err != nil {
		return err
	}
	return sqlitex.Execute(t.conn, "INSERT INTO rooms ("+roomCols+") VALUES ("+strings.Repeat("?,", 25)+"?)",
		&sqlitex.ExecOptions{Args: args})
}

// SaveRoom implements stick.Tx.SaveRoom.
func (t *tx) SaveRoom(r stick.Room) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	// A room's id, path, topic, key, name and creation time never change,
	// so they are not rewritten (and their indexes not touched); closed_at,
	// the key of the open-path and open-name indexes, is written only by a
	// close.
	q := `UPDATE rooms SET state = ?4, sequence_index = ?5,
		owner = ?6, reserved_for = ?7, pending_handoff_event_seq = ?8, grant_event_seq = ?9, turn_id = ?10,
		lease_id = ?11, lease_expires_at = ?12, claim_expires_at = ?13, owner_lease_ttl_ms = ?14, claim_ttl_ms = ?15,
		heartbeat_interval_ms = ?16, presence_ttl_ms = ?17, wait_max_wait_ms = ?18, updated_at = ?20, concluder = ?24,
		proxy_grace_ms = ?25, channels_json = ?26`
	if r.State == stick.StateClosed {
		q += ", closed_at = ?21"
	}
	args, err := roomArgs(r)
	if err != nil {
		return err
	}
	err = sqlitex.Execute(t.conn, q+" WHERE room_id = ?1", &sqlitex.ExecOptions{Args: args})
	if err == nil && t.conn.Changes() != 1 {
		return fmt.Errorf("save room %s: no such room", r.ID)
	}
	return err
}

const memberCols = `room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind, display_name,
	host_id, boot_id, pid, process_started_at, sync_cursor, reclaim_token,
	handle, standby, wake_transports, woken_seq, wake_state, wake_transport, wake_at, addressed_seq, interrupt_seq`

// Members implements stick.Tx.Members.
func (t *tx) Members(roomID string) ([]stick.Member, error) {
	var out []stick.Member
	// Sorted here: a room has a handful of members, and an ORDER BY would
	// set up SQLite's sorter on every read of a room.
	err := sqlitex.Execute(t.conn, "SELECT "+memberCols+" FROM members WHERE room_id = ?",
		&sqlitex.ExecOptions{Args: []any{roomID}, ResultFunc: func(st *sqlite.Stmt) error {
			m := stick.Member{
				RoomID: st.ColumnText(0), AgentID: st.ColumnText(1), Ordinal: st.ColumnInt(2),
				JoinedAt: colTime(st, 3), LastSeenAt: colTime(st, 4), Kind: stick.SessionKind(st.ColumnText(5)),
				DisplayName: st.ColumnText(6),
			}
			m.Process.HostID, m.Process.BootID, m.Process.PID = st.ColumnText(7), st.ColumnText(8), st.ColumnInt(9)
			m.Process.StartedAt = colTime(st, 10)
			m.SyncCursor = st.ColumnInt64(11)
			m.ReclaimToken = st.ColumnText(12)
			m.Handle, m.Standby, m.WakeTransports = st.ColumnText(13), st.ColumnInt(14) != 0, storecodec.SplitList(st.ColumnText(15))
			m.WokenSeq, m.WakeState, m.WakeTransport, m.WakeAt = st.ColumnInt64(16), st.ColumnText(17), st.ColumnText(18), colTime(st, 19)
			m.AddressedSeq, m.InterruptSeq = st.ColumnInt64(20), st.ColumnInt64(21)
			out = append(out, m)
			return nil
		}})
	slices.SortFunc(out, func(a, b stick.Member) int {
		return cmp.Or(cmp.Compare(a.Ordinal, b.Ordinal), a.JoinedAt.Compare(b.JoinedAt), strings.Compare(a.AgentID, b.AgentID))
	})
	return out, err
}

// SaveMember implements stick.Tx.SaveMember.
func (t *tx) SaveMember(m stick.Member) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	p := m.Process
	var pid any
	if p.PID != 0 {
		pid = p.PID
	}
	// An upsert updates the row in place; INSERT OR REPLACE would delete and
	// re-insert it, with a statement journal and foreign-key checks.
	return sqlitex.Execute(t.conn, "INSERT INTO members ("+memberCols+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"+
		" ON CONFLICT (room_id, agent_id) DO UPDATE SET ordinal = excluded.ordinal, joined_at = excluded.joined_at,"+
		" last_seen_at = excluded.last_seen_at, session_kind = excluded.session_kind, display_name = excluded.display_name,"+
		" host_id = excluded.host_id, boot_id = excluded.boot_id, pid = excluded.pid, process_started_at = excluded.process_started_at,"+
		" sync_cursor = excluded.sync_cursor, reclaim_token = excluded.reclaim_token, handle = excluded.handle,"+
		" standby = excluded.standby, wake_transports = excluded.wake_transports, woken_seq = excluded.woken_seq,"+
		" wake_state = excluded.wake_state, wake_transport = excluded.wake_transport, wake_at = excluded.wake_at,"+
		" addressed_seq = excluded.addressed_seq, interrupt_seq = excluded.interrupt_seq",
		&sqlitex.ExecOptions{Args: []any{
			m.RoomID, m.AgentID, m.Ordinal, ms(m.JoinedAt), ms(m.LastSeenAt), string(m.Kind), nullText(m.DisplayName),
			nullText(p.HostID), nullText(p.BootID), pid, nullTime(p.StartedAt), m.SyncCursor, nullText(m.ReclaimToken),
			m.Handle, m.Standby, storecodec.JoinList(m.WakeTransports), m.WokenSeq, nullText(m.WakeState),
			nullText(m.WakeTransport), nullTime(m.WakeAt), m.AddressedSeq, m.InterruptSeq,
		}})
}

// DeleteMember implements stick.Tx.DeleteMember.
func (t *tx) DeleteMember(roomID, agentID string) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	t.unbells = append(t.unbells, bellName(roomID, agentID))
	return sqlitex.Execute(t.conn, "DELETE FROM members WHERE room_id = ? AND agent_id = ?",
		&sqlitex.ExecOptions{Args: []any{roomID, agentID}})
}

const eventCols = `event_seq, event_id, room_id, turn_id, event_type, from_agent_id, to_agent_id,
	handoff_json, reason, text, ref_event_seq, data_json, created_at, message_type, client_message_id,
	recipients, interrupt, channel`

// AppendEvent implements stick.Tx.AppendEvent.
func (t *tx) AppendEvent(e stick.Event) (stick.Event, error) {
	if err := t.mustWrite(); err != nil {
		return e, err
	}
	if e.ID == "" {
		e.ID = newEventID()
	}
	var handoff any
	if e.Handoff != nil {
		b, err := json.Marshal(e.Handoff)
		if err != nil {
			return e, fmt.Errorf("encode handoff: %w", err)
		}
		handoff = string(b)
	}
	var data any
	if len(e.Data) > 0 {
		data = string(e.Data)
	}
	err := sqlitex.Execute(t.conn, "INSERT INTO events ("+eventCols[len("event_seq, "):]+") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		&sqlitex.ExecOptions{Args: []any{
			e.ID, e.RoomID, e.TurnID, string(e.Type), nullText(e.From), nullText(e.To), handoff,
			nullText(e.Reason), nullText(e.Text), nullInt(e.Ref), data, ms(e.CreatedAt),
			nullText(string(e.MessageType)), nullText(e.ClientMessageID),
			nullText(storecodec.JoinList(e.Recipients)), e.Interrupt, nullText(e.Channel),
		}})
	if err != nil {
		return e, err
	}
	e.Seq = t.conn.LastInsertRowID()
	if e.Seq%indexEvery == 0 {
		t.indexDue = true
	}
	return e, nil
}

// Event implements stick.Tx.Event.
func (t *tx) Event(roomID string, seq int64) (stick.Event, bool, error) {
	evs, err := t.events("SELECT "+eventCols+" FROM events WHERE room_id = ? AND event_seq = ?", roomID, seq)
	if err != nil || len(evs) == 0 {
		return stick.Event{}, false, err
	}
	return evs[0], true, nil
}

// EventsFor implements stick.Tx.EventsFor.
func (t *tx) EventsFor(roomID string, after int64, limit int, skipFrom string) ([]stick.Event, error) {
	if skipFrom == "" {
		return t.Events(roomID, after, limit)
	}
	return t.events("SELECT "+eventCols+" FROM events WHERE room_id = ? AND event_seq > ?"+
		" AND (from_agent_id IS NULL OR from_agent_id <> ?) ORDER BY event_seq LIMIT ?", roomID, after, skipFrom, limit)
}

// Events implements stick.Tx.Events.
func (t *tx) Events(roomID string, after int64, limit int) ([]stick.Event, error) {
	return t.events("SELECT "+eventCols+" FROM events WHERE room_id = ? AND event_seq > ? ORDER BY event_seq LIMIT ?",
		roomID, after, limit)
}

// LastEvent implements stick.Tx.LastEvent.
func (t *tx) LastEvent(roomID string, types ...stick.EventType) (stick.Event, bool, error) {
	var evs []stick.Event
	var err error
	if len(types) == 0 {
		evs, err = t.events("SELECT "+eventCols+" FROM events WHERE room_id = ? ORDER BY event_seq DESC LIMIT 1", roomID)
	} else {
		// Walks the room's log backwards; the types asked for are common ones.
		q := "SELECT " + eventCols + " FROM events WHERE room_id = ? AND event_type IN (" +
			strings.Repeat("?,", len(types)-1) + "?) ORDER BY event_seq DESC LIMIT 1"
		args := []any{roomID}
		for _, ty := range types {
			args = append(args, string(ty))
		}
		evs, err = t.events(q, args...)
	}
	if err != nil || len(evs) == 0 {
		return stick.Event{}, false, err
	}
	return evs[0], true, nil
}

// SentEvent implements stick.Tx.SentEvent.
func (t *tx) SentEvent(roomID, from, clientMessageID string) (stick.Event, bool, error) {
	evs, err := t.events("SELECT "+eventCols+" FROM events WHERE room_id = ? AND from_agent_id = ? AND client_message_id = ?",
		roomID, from, clientMessageID)
	if err != nil || len(evs) == 0 {
		return stick.Event{}, false, err
	}
	return evs[0], true, nil
}

// LastSeq implements stick.Tx.LastSeq.
func (t *tx) LastSeq(roomID string) (int64, error) {
	var seq int64
	err := sqlitex.Execute(t.conn, "SELECT coalesce(max(event_seq), 0) FROM events WHERE room_id = ?",
		&sqlitex.ExecOptions{Args: []any{roomID}, ResultFunc: func(st *sqlite.Stmt) error {
			seq = st.ColumnInt64(0)
			return nil
		}})
	return seq, err
}

func (t *tx) events(q string, args ...any) ([]stick.Event, error) {
	var out []stick.Event
	err := eachEvent(t.conn, q, args, func(e stick.Event) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// eachEvent runs q, which selects eventCols, and calls fn with each event
// in turn.
func eachEvent(conn *sqlite.Conn, q string, args []any, fn func(stick.Event) error) error {
	return sqlitex.Execute(conn, q, &sqlitex.ExecOptions{Args: args, ResultFunc: func(st *sqlite.Stmt) error {
		e := stick.Event{
			Seq: st.ColumnInt64(0), ID: st.ColumnText(1), RoomID: st.ColumnText(2), TurnID: st.ColumnInt64(3),
			Type: stick.EventType(st.ColumnText(4)), From: st.ColumnText(5), To: st.ColumnText(6),
			Reason: st.ColumnText(8), Text: st.ColumnText(9), Ref: st.ColumnInt64(10), CreatedAt: colTime(st, 12),
			MessageType: stick.NoteType(st.ColumnText(13)), ClientMessageID: st.ColumnText(14),
			Recipients: storecodec.SplitList(st.ColumnText(15)), Interrupt: st.ColumnInt(16) != 0, Channel: st.ColumnText(17),
		}
		if h := st.ColumnText(7); h != "" {
			e.Handoff = new(stick.Handoff)
			if err := json.Unmarshal([]byte(h), e.Handoff); err != nil {
				return fmt.Errorf("event %d: decode handoff: %w", e.Seq, err)
			}
		}
		if d := st.ColumnText(11); d != "" {
			e.Data = json.RawMessage(d)
		}
		return fn(e)
	}})
}

func (t *tx) mustWrite() error {
	if !t.write {
		return fmt.Errorf("store: write in a read transaction")
	}
	return nil
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func colTime(st *sqlite.Stmt, i int) time.Time {
	if st.ColumnType(i) == sqlite.TypeNull {
		return time.Time{}
	}
	return time.UnixMilli(st.ColumnInt64(i)).UTC()
}

func nullMS(d time.Duration) any {
	if d == 0 {
		return nil
	}
	return d.Milliseconds()
}

func colMS(st *sqlite.Stmt, i int) time.Duration {
	return time.Duration(st.ColumnInt64(i)) * time.Millisecond
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}
