package postgres

import (
	"fmt"
	"time"

	"github.com/stickhq/stick/stick"
)

// channelStats counts a room's notes per channel (a note with none in $2,
// stick.DefaultChannel) through the notes' index, with the time of each
// channel's newest note.
const channelStats = `SELECT coalesce(channel, $2), count(*), coalesce(sum(octet_length(coalesce(text, ''))), 0),
	(array_agg(created_at ORDER BY event_seq DESC))[1]
	FROM events WHERE room_id = $1 AND event_type = 'note' GROUP BY 1`

// ChannelStats implements stick.Tx.ChannelStats.
func (t *tx) ChannelStats(roomID string) ([]stick.ChannelStat, error) {
	rows, err := t.query(channelStats, roomID, stick.DefaultChannel)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []stick.ChannelStat
	for rows.Next() {
		var c stick.ChannelStat
		var notes, last int64
		if err := rows.Scan(&c.Channel, &notes, &c.Bytes, &last); err != nil {
			return nil, err
		}
		c.Notes, c.Last = int(notes), tm(&last)
		out = append(out, c)
	}
	return out, rows.Err()
}

// pruneNotes deletes, in one statement, the notes of room $1 in one
// channel (the condition that follows) past the limits, counted from the
// newest: those older than the $2 newest, those past $3 bytes, those
// posted before $4 (a limit of 0 or NULL sets none), and their search
// entries, and returns how many. The store's newest event, $6, is never among them: a
// new event's seq is one more than the greatest there is (see
// AppendEvent), so deleting the greatest would give its seq to the next
// event, and cursors past it would miss that event.
const pruneNotes = `WITH ranked AS (
	SELECT event_seq, created_at, row_number() OVER w AS n, sum(octet_length(coalesce(text, ''))) OVER w AS bytes
	FROM events WHERE room_id = $1 AND event_type = 'note' AND %s
	WINDOW w AS (ORDER BY event_seq DESC)
), gone AS (
	DELETE FROM events WHERE event_seq IN (SELECT event_seq FROM ranked
		WHERE (($2::bigint > 0 AND n > $2::bigint) OR ($3::bigint > 0 AND bytes > $3::bigint) OR created_at < $4::bigint)
			AND event_seq < $6::bigint)
	RETURNING event_seq
), unindexed AS (
	DELETE FROM search_entries WHERE entry_id IN (SELECT event_seq FROM gone)
)
SELECT count(*) FROM gone`

// The channel conditions of pruneNotes: the default channel is also the
// channel of notes that name none.
var (
	pruneInDefault = fmt.Sprintf(pruneNotes, "(channel IS NULL OR channel = $5)")
	pruneInNamed   = fmt.Sprintf(pruneNotes, "channel = $5")
)

// PruneNotes implements stick.Tx.PruneNotes, in one round trip. It keeps
// the store's newest event until another is appended (see pruneNotes).
func (t *tx) PruneNotes(roomID, channel string, maxMessages int, maxBytes int64, olderThan time.Time) (int, error) {
	if err := t.mustWrite(); err != nil {
		return 0, err
	}
	q := pruneInNamed
	if channel == "" || channel == stick.DefaultChannel {
		q, channel = pruneInDefault, stick.DefaultChannel
	}
	var n int64
	if err := t.queryRow(q, roomID, int64(maxMessages), maxBytes, nullTime(olderThan), channel, t.seq).Scan(&n); err != nil {
		return 0, err
	}
	if n > 0 {
		// What was read ahead of the room's log may be gone.
		delete(t.read.last, roomID)
		delete(t.read.events, roomID)
	}
	return int(n), nil
}
