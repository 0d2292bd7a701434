package postgres

import (
	"fmt"
	"strings"

	"github.com/stickhq/stick/stick"
)

// index adds one search entry: id is an event's seq, or minus a document
// paragraph's chunk id. Its text is indexed twice: stemmed (stick_stem,
// for whole words) and as written (stick_words, for prefixes), both with
// case and diacritics folded and no stop words dropped, as the SQLite
// store indexes: a phrase such as "test again" keeps its every word.
func (t *tx) index(id int64, room, typ, from, body string) error {
	err := t.later(nil, `INSERT INTO search_entries (entry_id, room_id, type, from_agent_id, body, stemmed, written)
		VALUES ($1, $2, $3, $4, $5, to_tsvector('stick_stem', $5), to_tsvector('stick_words', $5))`,
		id, room, typ, nullText(from), body)
	return err
}

// Highlight markers of ts_headline, private-use characters that become
// stick's markers once the text's own "**" is escaped.
const (
	markStart = "\uE000"
	markEnd   = "\uE001"
)

// Search implements stick.Tx.Search. A whole-word term is a phrase query
// on the stemmed vector, a prefix term one on the written vector whose
// last word is a prefix; each clause is the OR of its terms, and an entry
// matches when it matches every clause. Entries are ranked by ts_rank,
// normalised by length, best first.
func (t *tx) Search(m stick.SearchMatch, q stick.SearchQuery) ([]stick.SearchHit, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	var clauses, stemmed, written []string
	for _, c := range m {
		var any []string
		for _, term := range c {
			if term.Prefix {
				tq, err := t.prefixQuery(term.Words)
				if err != nil {
					return nil, err
				}
				p := arg(tq) + "::tsquery"
				written = append(written, p)
				any = append(any, "s.written @@ "+p)
			} else {
				p := "phraseto_tsquery('stick_stem', " + arg(term.Words) + "::text)"
				stemmed = append(stemmed, p)
				any = append(any, "s.stemmed @@ "+p)
			}
		}
		clauses = append(clauses, "("+strings.Join(any, " OR ")+")")
	}
	where := strings.Join(clauses, " AND ")
	if q.RoomID != "" {
		where += " AND s.room_id = " + arg(q.RoomID)
	}
	if q.Type != "" {
		where += " AND s.type = " + arg(q.Type)
	}
	if q.From != "" {
		where += " AND s.from_agent_id = " + arg(q.From)
	}
	if q.InRooms != nil {
		where += " AND s.room_id = ANY(" + arg(q.InRooms) + "::text[])"
	}
	rank, headline := "0", "s.body"
	opts := arg("StartSel=" + markStart + ", StopSel=" + markEnd + ", MaxWords=24, MinWords=8")
	if len(stemmed) > 0 {
		sq := "(" + strings.Join(stemmed, " || ") + ")"
		rank += " + ts_rank(s.stemmed, " + sq + ", 1)"
		headline = "ts_headline('stick_stem', s.body, " + sq + ", " + opts + ")"
	}
	if len(written) > 0 {
		wq := "(" + strings.Join(written, " || ") + ")"
		rank += " + ts_rank(s.written, " + wq + ", 1)"
		wh := "ts_headline('stick_words', s.body, " + wq + ", " + opts + ")"
		if len(stemmed) > 0 {
			wh = "CASE WHEN s.written @@ " + wq + " THEN " + wh + " ELSE " + headline + " END"
		}
		headline = wh
	}
	sql := `SELECT s.entry_id, s.room_id, s.type, coalesce(s.from_agent_id, ''), r.canonical_path, coalesce(r.room_name, ''),
			coalesce(e.created_at, d.updated_at, 0), coalesce(d.version, 0), coalesce(c.section, ''), ` + headline + `, ` + rank + ` AS score
		FROM search_entries s
		JOIN rooms r ON r.room_id = s.room_id
		LEFT JOIN events e ON s.entry_id > 0 AND e.event_seq = s.entry_id
		LEFT JOIN doc_chunks c ON s.entry_id < 0 AND c.chunk_id = -s.entry_id
		LEFT JOIN docs d ON s.entry_id < 0 AND d.room_id = s.room_id
		WHERE ` + where + ` ORDER BY score DESC, s.entry_id DESC LIMIT ` + arg(q.Limit)
	rows, err := t.query(sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	highlight := strings.NewReplacer("**", stick.EscapedMarker, markStart, stick.HighlightStart, markEnd, stick.HighlightEnd)
	var out []stick.SearchHit
	for rows.Next() {
		var h stick.SearchHit
		var id, created int64
		var snippet string
		if err := rows.Scan(&id, &h.RoomID, &h.Type, &h.From, &h.RoomPath, &h.RoomName, &created, &h.DocVersion, &h.Section,
			&snippet, &h.Score); err != nil {
			return nil, err
		}
		h.Snippet, h.CreatedAt = highlight.Replace(snippet), tm(&created)
		if id > 0 {
			h.EventSeq, h.DocVersion = id, 0
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// prefixQuery returns the tsquery of a prefix term: its words as the
// written vector splits them (compound words of a hyphen by their parts),
// adjacent, the last one a prefix. A term with no word matches nothing.
func (t *tx) prefixQuery(words string) (string, error) {
	rows, err := t.query(`SELECT lexemes[1] FROM ts_debug('stick_words', $1)
		WHERE alias NOT IN ('asciihword', 'hword', 'numhword') AND lexemes IS NOT NULL AND cardinality(lexemes) > 0`, words)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lex []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return "", err
		}
		lex = append(lex, "'"+strings.ReplaceAll(strings.ReplaceAll(l, `\`, `\\`), "'", "''")+"'")
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(lex) == 0 {
		return "'' & !''", nil
	}
	lex[len(lex)-1] += ":*"
	return strings.Join(lex, " <-> "), nil
}
