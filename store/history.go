package store

import (
	"encoding/json"

	"github.com/stickhq/stick/stick"
)

// History implements stick.Tx.History: one query of the filters that are
// set, each list bound as one JSON array (so that a filter's statement is
// the same whatever its list's length, and cached once), the newest
// matches through the log's index backwards, then put in order. A note
// with no channel is in stick.DefaultChannel, and one with no message
// type of stick.DefaultNoteType, as the domain reads them.
func (t *tx) History(q stick.HistoryQuery) ([]stick.Event, error) {
	if q.Limit <= 0 {
		return nil, nil
	}
	sql := "SELECT " + eventCols + " FROM events WHERE room_id = ?"
	args := []any{q.RoomID}
	list := func(xs any) string {
		b, _ := json.Marshal(xs) // strings only: cannot fail
		return string(b)
	}
	if len(q.Channels) > 0 {
		sql += " AND event_type = 'note' AND coalesce(channel, ?) IN (SELECT value FROM json_each(?))"
		args = append(args, stick.DefaultChannel, list(q.Channels))
	}
	if len(q.From) > 0 {
		sql += " AND from_agent_id IN (SELECT value FROM json_each(?))"
		args = append(args, list(q.From))
	}
	if len(q.Types) > 0 {
		sql += " AND event_type IN (SELECT value FROM json_each(?))"
		args = append(args, list(q.Types))
	}
	if len(q.NoteTypes) > 0 {
		sql += " AND event_type = 'note' AND coalesce(message_type, ?) IN (SELECT value FROM json_each(?))"
		args = append(args, string(stick.DefaultNoteType), list(q.NoteTypes))
	}
	if !q.Since.IsZero() {
		sql += " AND created_at >= ?"
		args = append(args, ms(q.Since))
	}
	if !q.Until.IsZero() {
		sql += " AND created_at < ?"
		args = append(args, ms(q.Until))
	}
	if q.Before > 0 {
		sql += " AND event_seq < ?"
		args = append(args, q.Before)
	}
	args = append(args, q.Limit)
	return t.events("SELECT * FROM ("+sql+" ORDER BY event_seq DESC LIMIT ?) ORDER BY event_seq", args...)
}
