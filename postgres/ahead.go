package postgres

import (
	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/stick"
)

// ahead is what a transaction read ahead, in the round trip that reads a
// room by its id: the room's members, its last event's seq, and the
// events its grant and its pending handoff point at, which nearly every
// transaction that reads a room reads next. They are read in the same
// snapshot, or under the same write lock, as the room, so they are what
// reading them later would return, as long as this transaction's own
// writes are accounted for: a member write forgets the room's members, an
// appended event is the room's last. Events never change once appended;
// notes may be deleted (PruneNotes), which forgets what was read ahead of
// their room's log.
type ahead struct {
	rooms   map[string]bool // the rooms read ahead
	members map[string][]stick.Member
	last    map[string]int64
	events  map[string]map[int64]stick.Event
}

const (
	// lastSeqQuery reads one entry of the index of a room's events, as
	// the planner would not for max() before it has the table's
	// statistics.
	lastSeqQuery = "SELECT coalesce((SELECT event_seq FROM events WHERE room_id = $1 ORDER BY event_seq DESC LIMIT 1), 0)"
	// pointedQuery returns the events a room's grant and pending handoff
	// point at, each found by its key.
	pointedQuery = "SELECT " + eventCols + " FROM events WHERE room_id = $1 AND event_seq = " +
		"(SELECT grant_event_seq FROM rooms WHERE room_id = $1) UNION ALL SELECT " + eventCols +
		" FROM events WHERE room_id = $1 AND event_seq = (SELECT pending_handoff_event_seq FROM rooms WHERE room_id = $1)"
)

// readAhead queues, once per room and transaction, the reads that go
// with reading room.
func (t *tx) readAhead(room string) {
	a := &t.read
	if a.rooms[room] {
		return
	}
	if a.rooms == nil {
		a.rooms, a.members, a.last, a.events = map[string]bool{}, map[string][]stick.Member{}, map[string]int64{}, map[string]map[int64]stick.Event{}
	}
	a.rooms[room] = true
	t.queue = append(t.queue,
		stmt{sql: membersQuery, args: []any{room}, rows: func(rows pgx.Rows) error {
			ms, err := scanMembers(rows)
			if err == nil {
				a.members[room] = ms
			}
			return err
		}},
		stmt{sql: lastSeqQuery, args: []any{room}, row: func(row pgx.Row) error {
			var seq int64
			err := row.Scan(&seq)
			if _, own := a.last[room]; err == nil && !own {
				a.last[room] = seq
			}
			return err
		}},
		stmt{sql: pointedQuery, args: []any{room}, rows: func(rows pgx.Rows) error {
			evs, err := scanEvents(rows)
			if err != nil {
				return err
			}
			for _, e := range evs {
				if a.events[room] == nil {
					a.events[room] = map[int64]stick.Event{}
				}
				a.events[room][e.Seq] = e
			}
			return nil
		}})
}

// lastSeq notes seq as room's last event's.
func (a *ahead) lastSeq(room string, seq int64) {
	if a.last == nil {
		a.last = map[string]int64{}
	}
	a.last[room] = seq
}

// event returns, once, the event of room with seq read ahead.
func (a *ahead) event(room string, seq int64) (stick.Event, bool) {
	e, ok := a.events[room][seq]
	if ok {
		delete(a.events[room], seq)
	}
	return e, ok
}
