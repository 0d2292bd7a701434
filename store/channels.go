package store

import (
	"fmt"
	"time"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// channelStats counts a room's notes per channel (a note with none in ?2,
// stick.DefaultChannel) through the notes' index; a max() makes the bare
// created_at that of the channel's newest note.
const channelStats = `SELECT coalesce(channel, ?2), count(*), sum(octet_length(coalesce(text, ''))), max(event_seq), created_at
	FROM events WHERE room_id = ?1 AND event_type = 'note' GROUP BY coalesce(channel, ?2)`

// ChannelStats implements stick.Tx.ChannelStats.
func (t *tx) ChannelStats(roomID string) ([]stick.ChannelStat, error) {
	var out []stick.ChannelStat
	err := sqlitex.Execute(t.conn, channelStats, &sqlitex.ExecOptions{
		Args: []any{roomID, stick.DefaultChannel},
		ResultFunc: func(st *sqlite.Stmt) error {
			out = append(out, stick.ChannelStat{Channel: st.ColumnText(0), Notes: st.ColumnInt(1), Bytes: st.ColumnInt64(2), Last: colTime(st, 4)})
			return nil
		}})
	return out, err
}

// prunedNotes selects the notes of room ?1 in one channel (the condition
// that follows) past the limits: those older than the ?2 newest, those
// past ?3 bytes counted from the newest, those posted before ?4 (a limit
// of 0 or NULL sets none). The store's newest event is never among them:
// a new event's event_seq is one more than the greatest there is, so
// deleting the greatest would give its event_seq to the next event, and
// cursors past it would miss that event.
const prunedNotes = `SELECT event_seq FROM (
	SELECT event_seq, created_at, row_number() OVER w AS n, sum(octet_length(coalesce(text, ''))) OVER w AS bytes
	FROM events WHERE room_id = ?1 AND event_type = 'note' AND %s
	WINDOW w AS (ORDER BY event_seq DESC))
	WHERE ((?2 > 0 AND n > ?2) OR (?3 > 0 AND bytes > ?3) OR created_at < ?4)
		AND event_seq < (SELECT max(event_seq) FROM events)`

// The channel conditions of prunedNotes: the default channel is also the
// channel of notes that name none.
var (
	prunedInDefault = fmt.Sprintf(prunedNotes, "(channel IS NULL OR channel = ?5)")
	prunedInNamed   = fmt.Sprintf(prunedNotes, "channel = ?5")
)

// The statements that delete one pruned note, by event_seq, and its rows
// of the search index; search_words takes its text from search_index, so
// its row is deleted with the text search_index holds, first.
const (
	unindexWords = `INSERT INTO search_words (search_words, rowid, body, room_id, type, from_agent_id)
	SELECT 'delete', rowid, body, room_id, type, from_agent_id FROM search_index WHERE rowid = ?`
	unindexNote = `DELETE FROM search_index WHERE rowid = ?`
	deleteNote  = `DELETE FROM events WHERE event_seq = ? AND event_type = 'note'`
)

// PruneNotes implements stick.Tx.PruneNotes. It finds the notes to delete
// in one query, then deletes each with its rows of the search index when
// the index is ready: a note the index has not reached yet has no rows,
// and once deleted it is not indexed later, since the index reads the
// log. A stale index is made again from the log. The store's newest event
// stays until another is appended (see prunedNotes), so a note may be
// kept past the limits until then.
func (t *tx) PruneNotes(roomID, channel string, maxMessages int, maxBytes int64, olderThan time.Time) (int, error) {
	if err := t.mustWrite(); err != nil {
		return 0, err
	}
	q := prunedInNamed
	if channel == "" || channel == stick.DefaultChannel {
		q, channel = prunedInDefault, stick.DefaultChannel
	}
	var doomed []int64
	err := sqlitex.Execute(t.conn, q, &sqlitex.ExecOptions{
		Args: []any{roomID, maxMessages, maxBytes, nullTime(olderThan), channel},
		ResultFunc: func(st *sqlite.Stmt) error {
			doomed = append(doomed, st.ColumnInt64(0))
			return nil
		}})
	if err != nil || len(doomed) == 0 {
		return 0, err
	}
	indexed := false
	if !t.noFTS {
		state, err := metaValue(t.conn, "search_index")
		if err != nil {
			return 0, err
		}
		indexed = state == "ready"
	}
	for _, seq := range doomed {
		stmts := []string{deleteNote}
		if indexed {
			stmts = []string{unindexWords, unindexNote, deleteNote}
		}
		for _, q := range stmts {
			if err := sqlitex.Execute(t.conn, q, &sqlitex.ExecOptions{Args: []any{seq}}); err != nil {
				return 0, err
			}
		}
	}
	return len(doomed), nil
}
