package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// The full-text index: one row per event with searchable text (rowid =
// event_seq) and one per paragraph of a room's current document (rowid =
// -chunk_id), kept by triggers
// in the transaction that writes the event or the document. Its state is
// the meta key search_index: "ready", or "stale" after a SQLite without
// FTS5 wrote the file (the triggers are dropped then, so it can).
const (
	searchTable = "search_index"
	// eventBody is the searchable text of an event row named new (or events).
	eventBody = `CASE WHEN %[1]s.handoff_json IS NOT NULL THEN
		coalesce(json_extract(%[1]s.handoff_json, '$.status'), '') || char(10) ||
		coalesce(json_extract(%[1]s.handoff_json, '$.next_action'), '') || char(10) ||
		coalesce((SELECT group_concat(value, char(10)) FROM json_each(%[1]s.handoff_json, '$.open_questions')), '')
	ELSE coalesce(%[1]s.reason || char(10), '') || coalesce(%[1]s.text, '') END`
	// searchedTypes are the event types with text worth finding. Doc
	// events are not: the document's paragraphs are, once, as they stand.
	searchedTypes = `('note', 'release', 'pass', 'close')`
)

var searchSchema = []string{
	`CREATE VIRTUAL TABLE search_index USING fts5 (body, room_id UNINDEXED, type UNINDEXED, from_agent_id UNINDEXED,
		tokenize = 'porter unicode61 remove_diacritics 2')`,
	`CREATE TRIGGER events_search AFTER INSERT ON events WHEN new.event_type IN ` + searchedTypes + ` BEGIN
		INSERT INTO search_index (rowid, body, room_id, type, from_agent_id) VALUES (new.event_seq, ` + fmt.Sprintf(eventBody, "new") + `,
			new.room_id, coalesce(new.message_type, new.event_type), new.from_agent_id);
	END`,
	`CREATE TRIGGER doc_chunks_search_insert AFTER INSERT ON doc_chunks BEGIN
		INSERT INTO search_index (rowid, body, room_id, type, from_agent_id) VALUES (-new.chunk_id, new.content, new.room_id, 'document', new.author);
	END`,
	`CREATE TRIGGER doc_chunks_search_delete AFTER DELETE ON doc_chunks BEGIN
		DELETE FROM search_index WHERE rowid = -old.chunk_id;
	END`,
	`INSERT INTO search_index (rowid, body, room_id, type, from_agent_id)
		SELECT -chunk_id, content, room_id, 'document', author FROM doc_chunks`,
}

// fillEvents indexes the events with ?1 < event_seq <= ?2.
var fillEvents = `INSERT INTO search_index (rowid, body, room_id, type, from_agent_id)
	SELECT event_seq, ` + fmt.Sprintf(eventBody, "events") + `, room_id, coalesce(message_type, event_type), from_agent_id
	FROM events WHERE event_seq > ?1 AND event_seq <= ?2 AND event_type IN ` + searchedTypes

// Building the index over an existing log: up to inlineFill events are
// indexed in the transaction that makes the index; a longer log is indexed
// after the open in transactions of fillBatch events each, so other
// processes are not locked out for seconds, and search says the index is
// being built until it is done. Variables so tests can shrink them.
var (
	inlineFill = 20_000
	fillBatch  = 10_000
)

var searchTriggers = []string{"events_search", "doc_chunks_search_insert", "doc_chunks_search_delete"}

// ensureSearch makes the search index when this SQLite has FTS5 and the
// index is missing or stale, or, without FTS5, drops its triggers (which
// would fail every write) and marks it stale. It runs inside migrate's
// write transaction, and reports whether events remain to be indexed (see
// fillSearch). The meta keys search_filled and search_fill_to bound the
// events still to index; triggers index every later one.
func (s *Store) ensureSearch(conn *sqlite.Conn) (building bool, err error) {
	state, err := metaValue(conn, "search_index")
	if err != nil {
		return false, err
	}
	fts, err := pragmaInt(conn, "SELECT sqlite_compileoption_used('ENABLE_FTS5')")
	if err != nil {
		return false, err
	}
	if fts == 0 || s.opts.noFTS {
		if state != "ready" && state != "building" {
			return false, nil
		}
		for _, t := range searchTriggers {
			if err := sqlitex.ExecuteTransient(conn, "DROP TRIGGER IF EXISTS "+t, nil); err != nil {
				return false, err
			}
		}
		return false, setMeta(conn, "search_index", "stale")
	}
	switch state {
	case "ready":
		return false, nil
	case "building":
		return true, nil
	}
	for _, t := range searchTriggers {
		if err := sqlitex.ExecuteTransient(conn, "DROP TRIGGER IF EXISTS "+t, nil); err != nil {
			return false, err
		}
	}
	if err := sqlitex.ExecuteTransient(conn, "DROP TABLE IF EXISTS "+searchTable, nil); err != nil {
		return false, err
	}
	for _, q := range searchSchema {
		if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
			return false, fmt.Errorf("make the search index: %w", err)
		}
	}
	last, err := pragmaInt(conn, "SELECT coalesce(max(event_seq), 0) FROM events")
	if err != nil {
		return false, err
	}
	count, err := pragmaInt(conn, "SELECT count(*) FROM events")
	if err != nil {
		return false, err
	}
	if count <= int64(inlineFill) {
		if err := sqlitex.Execute(conn, fillEvents, &sqlitex.ExecOptions{Args: []any{0, last}}); err != nil {
			return false, fmt.Errorf("index the log: %w", err)
		}
		return false, setMeta(conn, "search_index", "ready")
	}
	for k, v := range map[string]string{"search_index": "building", "search_filled": "0", "search_fill_to": strconv.FormatInt(last, 10)} {
		if err := setMeta(conn, k, v); err != nil {
			return false, err
		}
	}
	return true, nil
}

// fillSearch indexes the events ensureSearch left, a batch per write
// transaction, until none is left or ctx ends. Several processes may run
// it at once: each batch starts where the last committed one ended.
func (s *Store) fillSearch(ctx context.Context) error {
	for {
		done := false
		err := s.Update(ctx, func(x stick.Tx) error {
			conn := x.(*tx).conn
			if state, err := metaValue(conn, "search_index"); err != nil || state != "building" {
				done = true
				return err
			}
			from, to, err := fillRange(conn)
			if err != nil {
				return err
			}
			end := min(to, from+int64(fillBatch)) // event_seq has no gaps to speak of
			if err := sqlitex.Execute(conn, fillEvents, &sqlitex.ExecOptions{Args: []any{from, end}}); err != nil {
				return err
			}
			if end >= to {
				done = true
				return setMeta(conn, "search_index", "ready")
			}
			return setMeta(conn, "search_filled", strconv.FormatInt(end, 10))
		})
		if err != nil || done {
			return err
		}
	}
}

// fillRange reads the events fillSearch has yet to index: after from, up
// to and including to.
func fillRange(conn *sqlite.Conn) (from, to int64, err error) {
	for _, kv := range []struct {
		key string
		v   *int64
	}{{"search_filled", &from}, {"search_fill_to", &to}} {
		v, err := metaValue(conn, kv.key)
		if err != nil {
			return 0, 0, err
		}
		if *kv.v, err = strconv.ParseInt(v, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("meta %s %q: %w", kv.key, v, err)
		}
	}
	return from, to, nil
}

func setMeta(conn *sqlite.Conn, key, value string) error {
	return sqlitex.Execute(conn, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		&sqlitex.ExecOptions{Args: []any{key, value}})
}

// searchUnavailable is the error of a search that cannot run.
func searchUnavailable(why string) *stick.Error {
	return stick.Errorf(stick.CodeSearchUnavailable, "full-text search is not available: %s", why).
		WithHint("use a stick built with SQLite's FTS5 (the release builds are); meanwhile read the log with get_room_events")
}

// Search implements stick.Tx.Search.
func (t *tx) Search(match string, q stick.SearchQuery) ([]stick.SearchHit, error) {
	if t.noFTS {
		return nil, searchUnavailable("this stick's SQLite has no FTS5")
	}
	state, err := metaValue(t.conn, "search_index")
	if err != nil {
		return nil, err
	}
	switch state {
	case "ready":
	case "building":
		from, to, err := fillRange(t.conn)
		if err != nil {
			return nil, err
		}
		return nil, stick.Errorf(stick.CodeSearchUnavailable, "the search index is being built: %d%% of the log indexed", 100*from/max(to, 1)).
			WithHint("try again in a few seconds; meanwhile read the log with get_room_events")
	default:
		return nil, searchUnavailable("the index is out of date, since a stick without FTS5 wrote the database; it is rebuilt the next time a stick with FTS5 opens it")
	}
	// The best rows are ranked first, and only they get a snippet and
	// their details: a snippet in the ranking query would be made for
	// every match, and the rank column, unlike bm25(), costs twice as
	// much. Filters on unindexed columns run over the matches only.
	where, args := "search_index MATCH ?1", []any{match, q.Limit}
	for _, f := range []struct{ col, val string }{{"room_id", q.RoomID}, {"type", q.Type}, {"from_agent_id", q.From}} {
		if f.val != "" {
			args = append(args, f.val)
			where += fmt.Sprintf(" AND %s = ?%d", f.col, len(args))
		}
	}
	type ranked struct {
		id    int64
		score float64
	}
	var best []ranked
	err = sqlitex.Execute(t.conn, `SELECT rowid, bm25(search_index) AS score FROM search_index WHERE `+where+` ORDER BY score LIMIT ?2`,
		&sqlitex.ExecOptions{Args: args, ResultFunc: func(st *sqlite.Stmt) error {
			best = append(best, ranked{st.ColumnInt64(0), -st.ColumnFloat(1)})
			return nil
		}})
	out := make([]stick.SearchHit, 0, len(best))
	highlight := strings.NewReplacer("\x02", stick.HighlightStart, "\x03", stick.HighlightEnd)
	for _, b := range best {
		if err != nil {
			break
		}
		err = sqlitex.Execute(t.conn, `SELECT s.room_id, s.type, s.from_agent_id,
			snippet(search_index, 0, char(2), char(3), '…', 24), r.canonical_path,
			coalesce(e.created_at, d.updated_at), d.version, c.section
		FROM search_index s
		JOIN rooms r ON r.room_id = s.room_id
		LEFT JOIN events e ON ?2 > 0 AND e.event_seq = ?2
		LEFT JOIN doc_chunks c ON ?2 < 0 AND c.chunk_id = -?2
		LEFT JOIN docs d ON ?2 < 0 AND d.room_id = s.room_id
		WHERE search_index MATCH ?1 AND s.rowid = ?2`, &sqlitex.ExecOptions{Args: []any{match, b.id},
			ResultFunc: func(st *sqlite.Stmt) error {
				h := stick.SearchHit{RoomID: st.ColumnText(0), Type: st.ColumnText(1), From: st.ColumnText(2),
					Snippet: highlight.Replace(st.ColumnText(3)), RoomPath: st.ColumnText(4), CreatedAt: colTime(st, 5), Score: b.score}
				if b.id > 0 {
					h.EventSeq = b.id
				} else {
					h.DocVersion, h.Section = st.ColumnInt64(6), st.ColumnText(7)
				}
				out = append(out, h)
				return nil
			}})
	}
	if err != nil && strings.Contains(err.Error(), "no such module") {
		return nil, searchUnavailable("this stick's SQLite has no FTS5")
	}
	return out, err
}
