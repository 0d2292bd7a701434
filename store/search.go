package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// The full-text index holds one row per event with searchable text (rowid
// = event_seq) and one per paragraph of a room's current document (rowid =
// -chunk_id), twice: search_index stems its words (porter), for whole
// words, which match every word with the same stem; search_words holds the
// same rows' words as written, for prefixes, which match the words that
// begin so (a stem is often no prefix of its word: migration* must find
// "migrations", whose stem "migrat" it does not begin). search_words takes
// its text from search_index (external content), so the text is stored
// once. What a row holds is the domain's rule: an event's row holds
// stick.SearchText of it, with stick.HitType as its type, and a
// paragraph's row a piece of stick.Paragraphs (doc_chunks, see SaveDoc).
// Paragraphs are indexed by triggers, in the transaction that writes the
// document. Events are indexed in batches, which costs FTS5 one segment
// per batch instead of one per turn (that doubled the cost of a claim and
// release): the meta key search_indexed_through is the last event_seq
// indexed; the write transaction that appends an event whose event_seq
// is a multiple of indexEvery indexes the backlog, and CatchUpSearch
// indexes it before a search looks. The meta key search_index is "ready"
// once the index exists, or "stale" when it must be made again: after a
// SQLite without FTS5 wrote the file (it drops the paragraph triggers,
// which would fail every write), or after a migration that changed the
// index.
const (
	searchTable = "search_index"
	wordsTable  = "search_words"
)

// searchedEvents selects the events of stick.SearchedEvents with
// ?1 < event_seq <= ?2.
var searchedEvents = func() string {
	types := make([]string, len(stick.SearchedEvents))
	for i, t := range stick.SearchedEvents {
		types[i] = "'" + strings.ReplaceAll(string(t), "'", "''") + "'"
	}
	return "SELECT " + eventCols + " FROM events WHERE event_seq > ?1 AND event_seq <= ?2 AND event_type IN (" +
		strings.Join(types, ", ") + ") ORDER BY event_seq"
}()

// indexEvent is the stemmed row of one event; copyWords copies the rows
// with ?1 < rowid <= ?2 to the unstemmed table.
const (
	indexEvent = `INSERT INTO search_index (rowid, body, room_id, type, from_agent_id) VALUES (?, ?, ?, ?, ?)`
	copyWords  = `INSERT INTO search_words (rowid, body, room_id, type, from_agent_id)
	SELECT rowid, body, room_id, type, from_agent_id FROM search_index WHERE rowid > ?1 AND rowid <= ?2`
)

// indexEvents indexes the events with from < event_seq <= to, stemmed and
// then as written. Each event is read and indexed in turn, so a batch
// holds one event in memory at a time, however long its handoff.
func indexEvents(conn *sqlite.Conn, from, to int64) error {
	err := eachEvent(conn, searchedEvents, []any{from, to}, func(e stick.Event) error {
		text, ok := stick.SearchText(e)
		if !ok {
			return nil
		}
		return sqlitex.Execute(conn, indexEvent, &sqlitex.ExecOptions{
			Args: []any{e.Seq, text, e.RoomID, stick.HitType(e), nullText(e.From)}})
	})
	if err != nil {
		return err
	}
	return sqlitex.Execute(conn, copyWords, &sqlitex.ExecOptions{Args: []any{from, to}})
}

// Batch sizes, variables so tests can shrink them. A write transaction
// whose event crosses a multiple of indexEvery indexes up to 2*indexEvery
// events of backlog; a search indexes up to searchCatchUp (a longer
// backlog means the index is being built); up to inlineFill events of an
// older log are indexed in the transaction that makes the index. A longer
// backlog is indexed in the background, fillBatch events per transaction
// (about 20 ms) with as long a pause after each, so that turns taken
// meanwhile wait for the write lock no longer than that.
var (
	indexEvery    = int64(256)
	searchCatchUp = int64(10_000)
	fillBatch     = int64(2_000)
	inlineFill    = int64(20_000)
)

var searchSchema = []string{
	`CREATE VIRTUAL TABLE search_index USING fts5 (body, room_id UNINDEXED, type UNINDEXED, from_agent_id UNINDEXED,
		tokenize = 'porter unicode61 remove_diacritics 2')`,
	`CREATE VIRTUAL TABLE search_words USING fts5 (body, room_id UNINDEXED, type UNINDEXED, from_agent_id UNINDEXED,
		content = 'search_index', tokenize = 'unicode61 remove_diacritics 2')`,
	`CREATE TRIGGER doc_chunks_search_insert AFTER INSERT ON doc_chunks BEGIN
		INSERT INTO search_index (rowid, body, room_id, type, from_agent_id) VALUES (-new.chunk_id, new.content, new.room_id, '` + stick.DocumentHit + `', new.author);
		INSERT INTO search_words (rowid, body, room_id, type, from_agent_id) VALUES (-new.chunk_id, new.content, new.room_id, '` + stick.DocumentHit + `', new.author);
	END`,
	`CREATE TRIGGER doc_chunks_search_delete AFTER DELETE ON doc_chunks BEGIN
		DELETE FROM search_index WHERE rowid = -old.chunk_id;
		INSERT INTO search_words (search_words, rowid, body, room_id, type, from_agent_id) VALUES ('delete', -old.chunk_id, old.content, old.room_id, '` + stick.DocumentHit + `', old.author);
	END`,
	`INSERT INTO search_index (rowid, body, room_id, type, from_agent_id)
		SELECT -chunk_id, content, room_id, '` + stick.DocumentHit + `', author FROM doc_chunks`,
	`INSERT INTO search_words (rowid, body, room_id, type, from_agent_id)
		SELECT rowid, body, room_id, type, from_agent_id FROM search_index WHERE rowid < 0`,
	`INSERT INTO meta (key, value) VALUES ('search_indexed_through', '0')
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
}

var searchTriggers = []string{"doc_chunks_search_insert", "doc_chunks_search_delete"}

// ensureSearch makes the search index when this SQLite has FTS5 and the
// index is missing or stale, or, without FTS5, drops its triggers and
// marks it stale. It runs inside migrate's write transaction and reports
// whether the log's backlog is long enough to be indexed after the open
// (see fillSearch).
func (s *Store) ensureSearch(conn *sqlite.Conn) (backlog bool, err error) {
	state, err := metaValue(conn, "search_index")
	if err != nil {
		return false, err
	}
	fts, err := pragmaInt(conn, "SELECT sqlite_compileoption_used('ENABLE_FTS5')")
	if err != nil {
		return false, err
	}
	if fts == 0 || s.opts.noFTS {
		if state != "ready" {
			return false, nil
		}
		if err := dropSearchTriggers(conn); err != nil {
			return false, err
		}
		return false, setMeta(conn, "search_index", "stale")
	}
	if state != "ready" {
		if err := dropSearchTriggers(conn); err != nil {
			return false, err
		}
		for _, table := range []string{wordsTable, searchTable} {
			if err := sqlitex.ExecuteTransient(conn, "DROP TABLE IF EXISTS "+table, nil); err != nil {
				return false, err
			}
		}
		for _, q := range searchSchema {
			if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
				return false, fmt.Errorf("make the search index: %w", err)
			}
		}
		if err := setMeta(conn, "search_index", "ready"); err != nil {
			return false, err
		}
	}
	left, err := indexBacklog(conn, inlineFill)
	if err != nil {
		return false, fmt.Errorf("index the log: %w", err)
	}
	return left > 0, nil
}

// dropSearchTriggers drops the triggers that keep paragraphs in the index.
func dropSearchTriggers(conn *sqlite.Conn) error {
	for _, t := range searchTriggers {
		if err := sqlitex.ExecuteTransient(conn, "DROP TRIGGER IF EXISTS "+t, nil); err != nil {
			return err
		}
	}
	return nil
}

// watermark returns the last event_seq indexed and the last one there is.
func watermark(conn *sqlite.Conn) (indexed, last int64, err error) {
	v, err := metaValue(conn, "search_indexed_through")
	if err != nil {
		return 0, 0, err
	}
	if indexed, err = strconv.ParseInt(v, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("meta search_indexed_through %q: %w", v, err)
	}
	last, err = pragmaInt(conn, "SELECT coalesce(max(event_seq), 0) FROM events")
	return indexed, last, err
}

// indexBacklog indexes up to limit events after the watermark, inside the
// caller's write transaction, and returns how many are left. If nothing
// new was indexed, nothing is written.
func indexBacklog(conn *sqlite.Conn, limit int64) (left int64, err error) {
	indexed, last, err := watermark(conn)
	if err != nil || indexed >= last {
		return 0, err
	}
	to := min(last, indexed+limit) // event_seq has no gaps to speak of
	if err := indexEvents(conn, indexed, to); err != nil {
		return 0, err
	}
	return last - to, setMeta(conn, "search_indexed_through", strconv.FormatInt(to, 10))
}

// indexSome indexes up to 2*indexEvery events of backlog in a write
// transaction that appended an event crossing a multiple of indexEvery,
// when the index is ready; a backlog left (after a bulk write) is for
// Index to work off in the background.
func (t *tx) indexSome() error {
	if state, err := metaValue(t.conn, "search_index"); err != nil || state != "ready" {
		return err
	}
	left, err := indexBacklog(t.conn, 2*indexEvery)
	t.backlog = left > 0
	return err
}

// CatchUpSearch implements stick.SearchIndexer: it indexes the events
// not yet in the search index, so that a search in a View begun after it
// finds every event committed before it was called. It reads first, and
// takes the write lock only when events wait to be indexed, at most
// searchCatchUp of them; a longer backlog means the index is being built,
// which it leaves to the background (starting it if need be) for Search
// to report. Without FTS5, or with a stale index, it does nothing.
func (s *Store) CatchUpSearch(ctx context.Context) error {
	if s.opts.noFTS {
		return nil
	}
	behind, far := false, false
	err := s.BriefView(ctx, func(x stick.Tx) error {
		conn := x.(*tx).conn
		if state, err := metaValue(conn, "search_index"); err != nil || state != "ready" {
			return err
		}
		indexed, last, err := watermark(conn)
		behind, far = last > indexed, last-indexed > searchCatchUp
		return err
	})
	switch {
	case err != nil || !behind:
		return err
	case far:
		s.startFill()
		return nil
	}
	return s.Update(ctx, func(x stick.Tx) error {
		t := x.(*tx)
		if state, err := metaValue(t.conn, "search_index"); err != nil || state != "ready" {
			return err
		}
		indexed, last, err := watermark(t.conn)
		if err != nil {
			return err
		}
		if last-indexed > searchCatchUp { // a bulk write came in between
			t.backlog = true
			return nil
		}
		_, err = indexBacklog(t.conn, searchCatchUp)
		return err
	})
}

// Index indexes every event not yet in the search index, fillBatch events
// per write transaction, so that other processes are not locked out
// meanwhile. A store does it by itself, after opening a database with a
// long log and after a bulk write; call it to have the index complete
// now. Several processes may index at once: each batch starts where the
// last committed one ended.
func (s *Store) Index(ctx context.Context) error {
	return s.index(ctx, false)
}

// index is Index; paced, it pauses after each batch as long as the batch
// took, leaving the write lock to others half the time.
func (s *Store) index(ctx context.Context, paced bool) error {
	if s.opts.noFTS {
		return nil
	}
	for {
		start := time.Now()
		left := int64(0)
		err := s.Update(ctx, func(x stick.Tx) error {
			conn := x.(*tx).conn
			if state, err := metaValue(conn, "search_index"); err != nil || state != "ready" {
				return err
			}
			var err error
			left, err = indexBacklog(conn, fillBatch)
			return err
		})
		if err != nil || left == 0 {
			return err
		}
		if paced {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Since(start)):
			}
		}
	}
}

// startFill runs Index in the background unless it runs already; a fill
// that fails or is cut short by Close resumes at the next open.
func (s *Store) startFill() {
	f := &s.fill
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running || f.closed {
		return
	}
	f.running = true
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel, f.done = cancel, make(chan struct{})
	done := f.done
	go func() {
		defer close(done)
		_ = s.index(ctx, true)
		f.mu.Lock()
		f.running = false
		f.mu.Unlock()
	}()
}

// stopFill stops a background Index and waits for it, for Close.
func (s *Store) stopFill() {
	f := &s.fill
	f.mu.Lock()
	f.closed = true
	cancel, done := f.cancel, f.done
	f.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

func setMeta(conn *sqlite.Conn, key, value string) error {
	return sqlitex.Execute(conn, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
		&sqlitex.ExecOptions{Args: []any{key, value}})
}

// IndexState describes the search index of a database, for diagnosis.
type IndexState struct {
	// State is "ready", "stale" (a stick without FTS5 wrote the file, or
	// a migration changed the index; the next stick with FTS5 to open it
	// rebuilds the index) or "" (none yet).
	State string
	// Indexed and Last are the last event_seq indexed and the last one
	// there is: the index lags by Last - Indexed events until a write or
	// a search catches it up.
	Indexed, Last int64
}

// indexState reads the search index's state on conn.
func indexState(conn *sqlite.Conn) (IndexState, error) {
	var out IndexState
	var err error
	if out.State, err = metaValue(conn, "search_index"); err != nil || out.State == "" {
		return out, err
	}
	out.Indexed, out.Last, err = watermark(conn)
	return out, err
}

// searchUnavailable is the error of a search that cannot run.
func searchUnavailable(why string) *stick.Error {
	return stick.Errorf(stick.CodeSearchUnavailable, "full-text search is not available: %s", why).
		WithHint("use a stick built with SQLite's FTS5 (the release builds are); meanwhile read the log with get_room_events")
}

// Search implements stick.Tx.Search, compiling m to FTS5 (see
// planSearch). In a write transaction it first indexes the events not yet
// indexed; a read-only one searches what is (CatchUpSearch indexes them
// before a search through the Service).
func (t *tx) Search(m stick.SearchMatch, q stick.SearchQuery) ([]stick.SearchHit, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if t.noFTS {
		return nil, searchUnavailable("this stick's SQLite has no FTS5")
	}
	state, err := metaValue(t.conn, "search_index")
	if err != nil {
		return nil, err
	}
	if state != "ready" {
		return nil, searchUnavailable("the index is out of date, since a stick without FTS5 wrote the database; it is rebuilt the next time a stick with FTS5 opens it")
	}
	indexed, last, err := watermark(t.conn)
	if err != nil {
		return nil, err
	}
	switch {
	case last-indexed > searchCatchUp:
		t.backlog = true
		return nil, stick.Errorf(stick.CodeSearchUnavailable, "the search index is being built: %d%% of the log indexed", 100*indexed/max(last, 1)).
			WithHint("try again in a few seconds; meanwhile read the log with get_room_events")
	case t.write && last > indexed:
		if _, err := indexBacklog(t.conn, searchCatchUp); err != nil {
			return nil, err
		}
	}
	// The best rows are ranked first, and only they get a snippet and
	// their details: a snippet in the ranking query would be made for
	// every match, and the rank column, unlike bm25(), costs twice as
	// much. Filters on unindexed columns run over the matches only.
	p := planSearch(m)
	rank, args := p.rankQuery(q)
	type ranked struct {
		id    int64
		score float64
	}
	var best []ranked
	err = sqlitex.Execute(t.conn, rank, &sqlitex.ExecOptions{Args: args, ResultFunc: func(st *sqlite.Stmt) error {
		best = append(best, ranked{st.ColumnInt64(0), -st.ColumnFloat(1)})
		return nil
	}})
	out := make([]stick.SearchHit, 0, len(best))
	// Matches come between two private-use characters, which become the
	// markers; a literal "**" of the text is escaped, so that a marker is
	// never mistaken for the text's own bold.
	highlight := strings.NewReplacer("**", stick.EscapedMarker, "\uE000", stick.HighlightStart, "\uE001", stick.HighlightEnd)
	details, detailArgs := p.detailQuery()
	for _, b := range best {
		if err != nil {
			break
		}
		detailArgs[0] = b.id
		err = sqlitex.Execute(t.conn, details, &sqlitex.ExecOptions{Args: detailArgs,
			ResultFunc: func(st *sqlite.Stmt) error {
				h := stick.SearchHit{RoomID: st.ColumnText(0), Type: st.ColumnText(1), From: st.ColumnText(2),
					Snippet: highlight.Replace(st.ColumnText(3)), RoomPath: st.ColumnText(4), CreatedAt: colTime(st, 5), Score: b.score}
				h.RoomName = st.ColumnText(8)
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
