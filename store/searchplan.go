package store

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stickhq/stick/stick"
)

// searchPlan is a search query split between the two tables of the index:
// whole words go to search_index (stemmed), prefixes to search_words (as
// written).
type searchPlan struct {
	// parts must all match a row: each an FTS5 expression on one table,
	// with the clause it stands for. The clauses of only whole words are
	// one part on search_index, those of only prefixes one on
	// search_words; a clause with both (a OR b*) is a part on each table,
	// and a row matches it when it matches either.
	parts   []searchPart
	clauses int
	// written is every term as written, whole words too, and stemmed
	// every whole word, for the snippet: a hit's snippet comes from
	// search_words when written matches it (so that prefixes are
	// highlighted), else from search_index.
	written, stemmed string
}

// searchPart is an FTS5 expression on one table, for one clause or more.
type searchPart struct {
	table, expr string
	clause      int
}

// planSearch splits m between the tables.
func planSearch(m stick.SearchMatch) searchPlan {
	var p searchPlan
	var words, prefixes, all, wholeWords []string
	for _, c := range m {
		var w, pre []string
		for _, t := range c {
			all = append(all, ftsTerm(t))
			if t.Prefix {
				pre = append(pre, ftsTerm(t))
			} else {
				w = append(w, ftsTerm(t))
				wholeWords = append(wholeWords, ftsTerm(t))
			}
		}
		switch {
		case len(pre) == 0:
			words = append(words, ftsAny(w))
		case len(w) == 0:
			prefixes = append(prefixes, ftsAny(pre))
		default:
			p.parts = append(p.parts, searchPart{searchTable, ftsAny(w), p.clauses}, searchPart{wordsTable, ftsAny(pre), p.clauses})
			p.clauses++
		}
	}
	if len(words) > 0 {
		p.parts = append(p.parts, searchPart{searchTable, strings.Join(words, " AND "), p.clauses})
		p.clauses++
	}
	if len(prefixes) > 0 {
		p.parts = append(p.parts, searchPart{wordsTable, strings.Join(prefixes, " AND "), p.clauses})
		p.clauses++
	}
	if len(prefixes) > 0 || len(p.parts) > 1 {
		p.written = strings.Join(all, " OR ")
	}
	p.stemmed = strings.Join(wholeWords, " OR ")
	return p
}

// ftsTerm is t as an FTS5 string, in which no character is syntax.
func ftsTerm(t stick.SearchTerm) string {
	s := `"` + strings.ReplaceAll(t.Words, `"`, `""`) + `"`
	if t.Prefix {
		s += "*"
	}
	return s
}

// ftsAny is the FTS5 expression that matches any one of terms.
func ftsAny(terms []string) string {
	if len(terms) == 1 {
		return terms[0]
	}
	return "(" + strings.Join(terms, " OR ") + ")"
}

// rankQuery returns the query of the best q.Limit rows (rowid, bm25 score:
// lower is better) and its arguments. A query on one table is a single
// FTS5 match; one on both sums the scores of the parts a row matches and
// keeps the rows that match every clause.
func (p searchPlan) rankQuery(q stick.SearchQuery) (string, []any) {
	args := []any{q.Limit}
	filters := ""
	for _, f := range []struct{ col, val string }{{"room_id", q.RoomID}, {"type", q.Type}, {"from_agent_id", q.From}} {
		if f.val != "" {
			args = append(args, f.val)
			filters += fmt.Sprintf(" AND %s = ?%d", f.col, len(args))
		}
	}
	if q.InRooms != nil {
		// One argument however many rooms: a JSON array of their ids.
		rooms, _ := json.Marshal(q.InRooms)
		args = append(args, string(rooms))
		filters += fmt.Sprintf(" AND room_id IN (SELECT value FROM json_each(?%d))", len(args))
	}
	match := func(part searchPart) string {
		args = append(args, part.expr)
		return fmt.Sprintf("SELECT rowid AS id, bm25(%[1]s) AS score, %[2]d AS clause FROM %[1]s WHERE %[1]s MATCH ?%[3]d%[4]s",
			part.table, part.clause, len(args), filters)
	}
	if len(p.parts) == 1 {
		part := p.parts[0]
		args = append(args, part.expr)
		return fmt.Sprintf("SELECT rowid, bm25(%[1]s) AS score FROM %[1]s WHERE %[1]s MATCH ?%[2]d%[3]s ORDER BY score LIMIT ?1",
			part.table, len(args), filters), args
	}
	selects := make([]string, len(p.parts))
	for i, part := range p.parts {
		selects[i] = match(part)
	}
	return fmt.Sprintf("SELECT id, sum(score) AS score FROM (%s) GROUP BY id HAVING count(DISTINCT clause) = %d ORDER BY score LIMIT ?1",
		strings.Join(selects, " UNION ALL "), p.clauses), args
}

// detailQuery returns the query of one hit's details and snippet, and its
// arguments, the first of which is for the hit's rowid.
func (p searchPlan) detailQuery() (string, []any) {
	const cols = `s.room_id, s.type, s.from_agent_id, %s, r.canonical_path,
			coalesce(e.created_at, d.updated_at), d.version, c.section, r.room_name
		FROM %s s
		JOIN rooms r ON r.room_id = s.room_id
		LEFT JOIN events e ON ?1 > 0 AND e.event_seq = ?1
		LEFT JOIN doc_chunks c ON ?1 < 0 AND c.chunk_id = -?1
		LEFT JOIN docs d ON ?1 < 0 AND d.room_id = s.room_id
		WHERE `
	snippet := func(table string) string {
		return fmt.Sprintf("snippet(%s, 0, char(57344), char(57345), '…', 24)", table)
	}
	// On one table, the hit is matched where its details are read.
	switch {
	case p.written == "":
		return "SELECT " + fmt.Sprintf(cols, snippet(searchTable), searchTable) + searchTable + " MATCH ?2 AND s.rowid = ?1",
			[]any{int64(0), p.stemmed}
	case p.stemmed == "":
		return "SELECT " + fmt.Sprintf(cols, snippet(wordsTable), wordsTable) + wordsTable + " MATCH ?2 AND s.rowid = ?1",
			[]any{int64(0), p.written}
	}
	either := fmt.Sprintf(`coalesce((SELECT %s FROM %s WHERE %[2]s MATCH ?2 AND rowid = ?1), (SELECT %s FROM %s WHERE %[4]s MATCH ?3 AND rowid = ?1))`,
		snippet(wordsTable), wordsTable, snippet(searchTable), searchTable)
	return "SELECT " + fmt.Sprintf(cols, either, searchTable) + "s.rowid = ?1", []any{int64(0), p.written, p.stemmed}
}
