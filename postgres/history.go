package postgres

import (
	"strconv"

	"github.com/stickhq/stick/stick"
)

// History implements stick.Tx.History: one query of the filters that are
// set, the newest matches through the log's index backwards, then put in
// order. A note with no channel is in stick.DefaultChannel, and one with
// no message type of stick.DefaultNoteType, as the domain reads them.
func (t *tx) History(q stick.HistoryQuery) ([]stick.Event, error) {
	if q.Limit <= 0 {
		return nil, nil
	}
	args := []any{q.RoomID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	sql := "SELECT " + eventCols + " FROM events WHERE room_id = $1"
	if len(q.Channels) > 0 {
		sql += " AND event_type = 'note' AND coalesce(channel, " + arg(stick.DefaultChannel) + ") = ANY(" + arg(q.Channels) + "::text[])"
	}
	if len(q.From) > 0 {
		sql += " AND from_agent_id = ANY(" + arg(q.From) + "::text[])"
	}
	if len(q.Types) > 0 {
		types := make([]string, len(q.Types))
		for i, ty := range q.Types {
			types[i] = string(ty)
		}
		sql += " AND event_type = ANY(" + arg(types) + "::text[])"
	}
	if len(q.NoteTypes) > 0 {
		types := make([]string, len(q.NoteTypes))
		for i, ty := range q.NoteTypes {
			types[i] = string(ty)
		}
		sql += " AND event_type = 'note' AND coalesce(message_type, " + arg(string(stick.DefaultNoteType)) + ") = ANY(" + arg(types) + "::text[])"
	}
	if !q.Since.IsZero() {
		sql += " AND created_at >= " + arg(ms(q.Since))
	}
	if !q.Until.IsZero() {
		sql += " AND created_at < " + arg(ms(q.Until))
	}
	if q.Before > 0 {
		sql += " AND event_seq < " + arg(q.Before)
	}
	sql += " ORDER BY event_seq DESC LIMIT " + arg(q.Limit)
	return t.events("SELECT * FROM ("+sql+") e ORDER BY event_seq", args...)
}
