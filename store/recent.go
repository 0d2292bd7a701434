package store

import (
	"time"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// LatestEvents implements stick.Tx.LatestEvents: the newest events through
// the (room_id, event_seq) index, backwards, then put in order.
func (t *tx) LatestEvents(roomID string, limit int) ([]stick.Event, error) {
	return t.events("SELECT * FROM (SELECT "+eventCols+" FROM events WHERE room_id = ? ORDER BY event_seq DESC LIMIT ?) ORDER BY event_seq",
		roomID, limit)
}

// EventsBefore implements stick.Tx.EventsBefore: LatestEvents from a
// point of the (room_id, event_seq) index.
func (t *tx) EventsBefore(roomID string, before int64, limit int) ([]stick.Event, error) {
	return t.events("SELECT * FROM (SELECT "+eventCols+" FROM events WHERE room_id = ? AND event_seq < ? ORDER BY event_seq DESC LIMIT ?) ORDER BY event_seq",
		roomID, before, limit)
}

// LastEventAt implements stick.Tx.LastEventAt: one step of the (room_id,
// event_seq) index, from its end.
func (t *tx) LastEventAt(roomID string) (time.Time, error) {
	var at time.Time
	err := sqlitex.Execute(t.conn, "SELECT created_at FROM events WHERE room_id = ? ORDER BY event_seq DESC LIMIT 1",
		&sqlitex.ExecOptions{Args: []any{roomID}, ResultFunc: func(st *sqlite.Stmt) error {
			at = colTime(st, 0)
			return nil
		}})
	return at, err
}
