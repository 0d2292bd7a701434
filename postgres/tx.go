package postgres

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stickhq/stick/internal/storecodec"
	"github.com/stickhq/stick/stick"
)

// tx implements stick.Tx on one transaction.
type tx struct {
	ctx   context.Context
	s     *Store
	conn  *pgxpool.Conn
	write bool
	wrote bool     // a write method ran
	rings []string // bells to ring at the commit (bellKey)

	queue   []stmt // statements not yet sent (see pipeline.go)
	read    ahead  // what was read ahead with a room (see ahead.go)
	opening int    // how many of them begin the transaction
	begun   bool   // the server ran the BEGIN
	seq     int64  // the last event's seq, read under the write lock
}

// Ring implements stick.Tx.Ring.
func (t *tx) Ring(room, agent string) {
	if t.write {
		t.rings = append(t.rings, bellKey(room, agent))
	}
}

func (t *tx) mustWrite() error {
	if !t.write {
		return fmt.Errorf("postgres: write in a read transaction")
	}
	t.wrote = true
	return nil
}

const roomCols = `room_id, canonical_path, topic, state, sequence_index, owner, reserved_for,
	pending_handoff_event_seq, grant_event_seq, turn_id, lease_id, lease_expires_at, claim_expires_at,
	owner_lease_ttl_ms, claim_ttl_ms, heartbeat_interval_ms, presence_ttl_ms, wait_max_wait_ms,
	created_at, updated_at, closed_at, room_key, room_name, concluder, proxy_grace_ms, channels_json`

// Room implements stick.Tx.Room.
func (t *tx) Room(id string) (stick.Room, bool, error) {
	t.readAhead(id)
	rooms, err := t.rooms("SELECT "+roomCols+" FROM rooms WHERE room_id = $1", id)
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
	q := "SELECT " + roomCols + " FROM rooms WHERE canonical_path = ANY($1) AND canonical_path <> ''"
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	return t.rooms(q+` ORDER BY canonical_path COLLATE "C", created_at, room_seq`, paths)
}

// RoomsUnder implements stick.Tx.RoomsUnder.
func (t *tx) RoomsUnder(dir string, includeClosed bool) ([]stick.Room, error) {
	q := "SELECT " + roomCols + " FROM rooms WHERE true"
	var args []any
	if dir != "" {
		sep := "/"
		if strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, `\`) {
			sep = ""
		} else if strings.Contains(dir, `\`) && !strings.Contains(dir, "/") {
			sep = `\`
		}
		lo := dir + sep
		hi := lo[:len(lo)-1] + string(rune(lo[len(lo)-1]+1))
		q += ` AND canonical_path COLLATE "C" >= $1 AND canonical_path COLLATE "C" < $2 AND canonical_path <> $3`
		args = append(args, lo, hi, dir)
	}
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	if dir == "" {
		return t.rooms(q+` ORDER BY canonical_path = '', canonical_path COLLATE "C", created_at, room_seq`, args...)
	}
	return t.rooms(q+` ORDER BY canonical_path COLLATE "C", created_at, room_seq`, args...)
}

// RoomsByKey implements stick.Tx.RoomsByKey.
func (t *tx) RoomsByKey(key string, includeClosed bool) ([]stick.Room, error) {
	q := "SELECT " + roomCols + " FROM rooms WHERE room_key = $1"
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	return t.rooms(q+" ORDER BY created_at, room_seq", key)
}

// RoomsNamed implements stick.Tx.RoomsNamed.
func (t *tx) RoomsNamed(name string, includeClosed bool) ([]stick.Room, error) {
	q := "SELECT " + roomCols + " FROM rooms WHERE room_name IS NOT NULL"
	var args []any
	if name != "" {
		q += " AND room_name = $1"
		args = append(args, name)
	}
	if !includeClosed {
		q += " AND closed_at IS NULL"
	}
	return t.rooms(q+" ORDER BY created_at, room_seq", args...)
}

func (t *tx) rooms(q string, args ...any) ([]stick.Room, error) {
	rows, err := t.query(q, args...)
	if err != nil {
		return nil, err
	}
	var out []stick.Room
	for rows.Next() {
		var (
			id, path, topic, state, key     string
			owner, reserved, lease          *string
			name, concluder, channels       *string
			seqIdx                          int
			pending, grant, leaseAt, claim  *int64
			turn, created, updated          int64
			lttl, cttl, hb, pttl, wait, grc *int64
			closed                          *int64
		)
		if err := rows.Scan(&id, &path, &topic, &state, &seqIdx, &owner, &reserved, &pending, &grant, &turn, &lease,
			&leaseAt, &claim, &lttl, &cttl, &hb, &pttl, &wait, &created, &updated, &closed, &key, &name, &concluder, &grc, &channels); err != nil {
			rows.Close()
			return nil, err
		}
		specs, err := storecodec.DecodeChannels(str(channels))
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("room %s: %w", id, err)
		}
		out = append(out, stick.Room{
			ID: id, Path: path, Topic: topic, State: stick.RoomState(state), SequenceIndex: seqIdx,
			Owner: str(owner), ReservedFor: str(reserved), PendingHandoffSeq: num(pending), GrantSeq: num(grant),
			TurnID: turn, LeaseID: str(lease), LeaseExpiresAt: tm(leaseAt), ClaimExpiresAt: tm(claim),
			Policy: stick.Policy{OwnerLeaseTTL: dur(lttl), ClaimTTL: dur(cttl), HeartbeatInterval: dur(hb),
				PresenceTTL: dur(pttl), WaitMaxWait: dur(wait), ProxyGrace: dur(grc)},
			CreatedAt: tm(&created), UpdatedAt: tm(&updated), ClosedAt: tm(closed),
			Key: key, Name: str(name), Concluder: str(concluder), Channels: specs,
		})
	}
	return out, rows.Err()
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

// placeholders returns "$from, ..., $to".
func placeholders(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", i)
	}
	return b.String()
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
	return t.later(nil, "INSERT INTO rooms ("+roomCols+") VALUES ("+placeholders(1, 26)+")", args...)
}

// SaveRoom implements stick.Tx.SaveRoom: a room's id, path, topic, key,
// name and creation time are kept as created, and closed_at is written
// only by a close.
func (t *tx) SaveRoom(r stick.Room) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	a, err := roomArgs(r)
	if err != nil {
		return err
	}
	args := []any{a[0], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17], a[19], a[23], a[24], a[25]}
	q := `UPDATE rooms SET state = $2, sequence_index = $3,
		owner = $4, reserved_for = $5, pending_handoff_event_seq = $6, grant_event_seq = $7, turn_id = $8,
		lease_id = $9, lease_expires_at = $10, claim_expires_at = $11, owner_lease_ttl_ms = $12, claim_ttl_ms = $13,
		heartbeat_interval_ms = $14, presence_ttl_ms = $15, wait_max_wait_ms = $16, updated_at = $17, concluder = $18,
		proxy_grace_ms = $19, channels_json = $20`
	if r.State == stick.StateClosed {
		q += ", closed_at = $21"
		args = append(args, a[20])
	}
	q += " WHERE room_id = $1"
	return t.later(func(tag pgconn.CommandTag) error {
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("save room %s: no such room", r.ID)
		}
		return nil
	}, q, args...)
}

const memberCols = `room_id, agent_id, ordinal, joined_at, last_seen_at, session_kind, display_name,
	host_id, boot_id, pid, process_started_at, sync_cursor, reclaim_token,
	handle, standby, wake_transports, woken_seq, wake_state, wake_transport, wake_at, addressed_seq, interrupt_seq`

// Members implements stick.Tx.Members.
func (t *tx) Members(roomID string) ([]stick.Member, error) {
	if ms, ok := t.read.members[roomID]; ok {
		return slices.Clone(ms), nil
	}
	rows, err := t.query(membersQuery, roomID)
	if err != nil {
		return nil, err
	}
	return scanMembers(rows)
}

const membersQuery = "SELECT " + memberCols + " FROM members WHERE room_id = $1"

// scanMembers reads the rows of membersQuery in sequence order.
func scanMembers(rows pgx.Rows) ([]stick.Member, error) {
	var out []stick.Member
	for rows.Next() {
		var (
			m                          stick.Member
			kind                       string
			display, host, boot, token *string
			pid                        *int32
			joined, seen               int64
			started, wakeAt            *int64
			transports                 string
			wakeState, wakeTransport   *string
		)
		if err := rows.Scan(&m.RoomID, &m.AgentID, &m.Ordinal, &joined, &seen, &kind, &display, &host, &boot, &pid,
			&started, &m.SyncCursor, &token, &m.Handle, &m.Standby, &transports, &m.WokenSeq, &wakeState, &wakeTransport, &wakeAt,
			&m.AddressedSeq, &m.InterruptSeq); err != nil {
			rows.Close()
			return nil, err
		}
		m.JoinedAt, m.LastSeenAt, m.Kind, m.DisplayName = tm(&joined), tm(&seen), stick.SessionKind(kind), str(display)
		m.Process.HostID, m.Process.BootID, m.Process.StartedAt = str(host), str(boot), tm(started)
		if pid != nil {
			m.Process.PID = int(*pid)
		}
		m.ReclaimToken = str(token)
		m.WakeTransports, m.WakeState, m.WakeTransport, m.WakeAt = storecodec.SplitList(transports), str(wakeState), str(wakeTransport), tm(wakeAt)
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b stick.Member) int {
		return cmp.Or(cmp.Compare(a.Ordinal, b.Ordinal), a.JoinedAt.Compare(b.JoinedAt), strings.Compare(a.AgentID, b.AgentID))
	})
	return out, rows.Err()
}

// SaveMember implements stick.Tx.SaveMember.
func (t *tx) SaveMember(m stick.Member) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	delete(t.read.members, m.RoomID)
	p := m.Process
	var pid any
	if p.PID != 0 {
		pid = p.PID
	}
	return t.later(nil, "INSERT INTO members ("+memberCols+") VALUES ("+placeholders(1, 22)+")"+
		" ON CONFLICT (room_id, agent_id) DO UPDATE SET ordinal = excluded.ordinal, joined_at = excluded.joined_at,"+
		" last_seen_at = excluded.last_seen_at, session_kind = excluded.session_kind, display_name = excluded.display_name,"+
		" host_id = excluded.host_id, boot_id = excluded.boot_id, pid = excluded.pid, process_started_at = excluded.process_started_at,"+
		" sync_cursor = excluded.sync_cursor, reclaim_token = excluded.reclaim_token, handle = excluded.handle,"+
		" standby = excluded.standby, wake_transports = excluded.wake_transports, woken_seq = excluded.woken_seq,"+
		" wake_state = excluded.wake_state, wake_transport = excluded.wake_transport, wake_at = excluded.wake_at,"+
		" addressed_seq = excluded.addressed_seq, interrupt_seq = excluded.interrupt_seq",
		m.RoomID, m.AgentID, m.Ordinal, ms(m.JoinedAt), ms(m.LastSeenAt), string(m.Kind), nullText(m.DisplayName),
		nullText(p.HostID), nullText(p.BootID), pid, nullTime(p.StartedAt), m.SyncCursor, nullText(m.ReclaimToken),
		m.Handle, m.Standby, storecodec.JoinList(m.WakeTransports), m.WokenSeq, nullText(m.WakeState),
		nullText(m.WakeTransport), nullTime(m.WakeAt), m.AddressedSeq, m.InterruptSeq)
}

// DeleteMember implements stick.Tx.DeleteMember.
func (t *tx) DeleteMember(roomID, agentID string) error {
	if err := t.mustWrite(); err != nil {
		return err
	}
	delete(t.read.members, roomID)
	return t.later(nil, "DELETE FROM members WHERE room_id = $1 AND agent_id = $2", roomID, agentID)
}

const eventCols = `event_seq, event_id, room_id, turn_id, event_type, from_agent_id, to_agent_id,
	handoff_json, reason, text, ref_event_seq, data_json, created_at, message_type, client_message_id,
	recipients, interrupt, channel`

// AppendEvent implements stick.Tx.AppendEvent. The event's Seq is the
// last one plus one: the write lock is held, so no other transaction
// appends meanwhile, and sequence numbers have no gaps; the last one was
// read once the lock was granted and is counted on here. An event with
// searchable text is indexed in the same transaction.
func (t *tx) AppendEvent(e stick.Event) (stick.Event, error) {
	if err := t.mustWrite(); err != nil {
		return e, err
	}
	if e.ID == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		e.ID = "ev_" + hex.EncodeToString(b)
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
	t.seq++
	e.Seq = t.seq
	t.read.lastSeq(e.RoomID, e.Seq)
	if err := t.later(nil, "INSERT INTO events ("+eventCols+") VALUES ("+placeholders(1, 18)+")",
		e.Seq, e.ID, e.RoomID, e.TurnID, string(e.Type), nullText(e.From), nullText(e.To), handoff,
		nullText(e.Reason), nullText(e.Text), nullInt(e.Ref), data, ms(e.CreatedAt),
		nullText(string(e.MessageType)), nullText(e.ClientMessageID),
		nullText(storecodec.JoinList(e.Recipients)), e.Interrupt, nullText(e.Channel)); err != nil {
		return e, err
	}
	var err error
	if text, ok := stick.SearchText(e); ok {
		err = t.index(e.Seq, e.RoomID, stick.HitType(e), e.From, text)
	}
	return e, err
}

// Event implements stick.Tx.Event.
func (t *tx) Event(roomID string, seq int64) (stick.Event, bool, error) {
	if e, ok := t.read.event(roomID, seq); ok {
		return e, true, nil
	}
	evs, err := t.events("SELECT "+eventCols+" FROM events WHERE room_id = $1 AND event_seq = $2", roomID, seq)
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
	return t.events("SELECT "+eventCols+" FROM events WHERE room_id = $1 AND event_seq > $2"+
		" AND (from_agent_id IS NULL OR from_agent_id <> $4) ORDER BY event_seq LIMIT $3", roomID, after, limit, skipFrom)
}

// Events implements stick.Tx.Events.
func (t *tx) Events(roomID string, after int64, limit int) ([]stick.Event, error) {
	return t.events("SELECT "+eventCols+" FROM events WHERE room_id = $1 AND event_seq > $2 ORDER BY event_seq LIMIT $3",
		roomID, after, limit)
}

// LatestEvents implements stick.Tx.LatestEvents.
func (t *tx) LatestEvents(roomID string, limit int) ([]stick.Event, error) {
	return t.events("SELECT * FROM (SELECT "+eventCols+" FROM events WHERE room_id = $1 ORDER BY event_seq DESC LIMIT $2) e ORDER BY event_seq",
		roomID, limit)
}

// EventsBefore implements stick.Tx.EventsBefore.
func (t *tx) EventsBefore(roomID string, before int64, limit int) ([]stick.Event, error) {
	return t.events("SELECT * FROM (SELECT "+eventCols+" FROM events WHERE room_id = $1 AND event_seq < $2"+
		" ORDER BY event_seq DESC LIMIT $3) e ORDER BY event_seq", roomID, before, limit)
}

// LastEventAt implements stick.Tx.LastEventAt.
func (t *tx) LastEventAt(roomID string) (time.Time, error) {
	var at *int64
	err := t.queryRow("SELECT created_at FROM events WHERE room_id = $1 ORDER BY event_seq DESC LIMIT 1", roomID).Scan(&at)
	if err == pgx.ErrNoRows {
		return time.Time{}, nil
	}
	return tm(at), err
}

// LastEvent implements stick.Tx.LastEvent.
func (t *tx) LastEvent(roomID string, types ...stick.EventType) (stick.Event, bool, error) {
	var evs []stick.Event
	var err error
	if len(types) == 0 {
		evs, err = t.events("SELECT "+eventCols+" FROM events WHERE room_id = $1 ORDER BY event_seq DESC LIMIT 1", roomID)
	} else {
		names := make([]string, len(types))
		for i, ty := range types {
			names[i] = string(ty)
		}
		evs, err = t.events("SELECT "+eventCols+" FROM events WHERE room_id = $1 AND event_type = ANY($2) ORDER BY event_seq DESC LIMIT 1",
			roomID, names)
	}
	if err != nil || len(evs) == 0 {
		return stick.Event{}, false, err
	}
	return evs[0], true, nil
}

// SentEvent implements stick.Tx.SentEvent.
func (t *tx) SentEvent(roomID, from, clientMessageID string) (stick.Event, bool, error) {
	evs, err := t.events("SELECT "+eventCols+" FROM events WHERE room_id = $1 AND from_agent_id = $2 AND client_message_id = $3",
		roomID, from, clientMessageID)
	if err != nil || len(evs) == 0 {
		return stick.Event{}, false, err
	}
	return evs[0], true, nil
}

// LastSeq implements stick.Tx.LastSeq.
func (t *tx) LastSeq(roomID string) (int64, error) {
	if seq, ok := t.read.last[roomID]; ok {
		return seq, nil
	}
	var seq int64
	err := t.queryRow(lastSeqQuery, roomID).Scan(&seq)
	return seq, err
}

func (t *tx) events(q string, args ...any) ([]stick.Event, error) {
	rows, err := t.query(q, args...)
	if err != nil {
		return nil, err
	}
	return scanEvents(rows)
}

// scanEvents reads rows of eventCols.
func scanEvents(rows pgx.Rows) ([]stick.Event, error) {
	defer rows.Close()
	var out []stick.Event
	for rows.Next() {
		var (
			e                                         stick.Event
			typ                                       string
			from, to, handoff, reason, text, data, mt *string
			cmid, recipients, channel                 *string
			ref                                       *int64
			created                                   int64
		)
		if err := rows.Scan(&e.Seq, &e.ID, &e.RoomID, &e.TurnID, &typ, &from, &to, &handoff, &reason, &text, &ref, &data,
			&created, &mt, &cmid, &recipients, &e.Interrupt, &channel); err != nil {
			return nil, err
		}
		e.Recipients, e.Channel = storecodec.SplitList(str(recipients)), str(channel)
		e.Type, e.From, e.To, e.Reason, e.Text, e.Ref = stick.EventType(typ), str(from), str(to), str(reason), str(text), num(ref)
		e.CreatedAt, e.MessageType, e.ClientMessageID = tm(&created), stick.NoteType(str(mt)), str(cmid)
		if h := str(handoff); h != "" {
			e.Handoff = new(stick.Handoff)
			if err := json.Unmarshal([]byte(h), e.Handoff); err != nil {
				return nil, fmt.Errorf("event %d: decode handoff: %w", e.Seq, err)
			}
		}
		if d := str(data); d != "" {
			e.Data = json.RawMessage(d)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func tm(v *int64) time.Time {
	if v == nil {
		return time.Time{}
	}
	return time.UnixMilli(*v).UTC()
}

func nullMS(d time.Duration) any {
	if d == 0 {
		return nil
	}
	return d.Milliseconds()
}

func dur(v *int64) time.Duration {
	if v == nil {
		return 0
	}
	return time.Duration(*v) * time.Millisecond
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

func num(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
