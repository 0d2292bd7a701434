package stick

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// Limits on searches.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 200
	MaxQueryLen        = 1 << 10
)

// Highlight markers around each match in a SearchHit's Snippet (markdown bold).
const (
	HighlightStart = "**"
	HighlightEnd   = "**"
)

// DocumentHit is the Type of a search hit in a room's current document.
const DocumentHit = "document"

// SearchQuery is a full-text search over notes, handoffs (status, next
// action, open questions), close reasons and conclusions, and the
// paragraphs of each room's current document.
type SearchQuery struct {
	// Query is words to find, all of them: "word" matches word, words and
	// wording alike (stemmed), "word*" any word that begins so as written
	// (migration* finds migrations, not migrate), "a phrase" in double
	// quotes the words in order, and OR between two terms either one.
	Query string
	// RoomID limits the search to one room; "" searches every room.
	RoomID string
	// Type keeps hits of one kind (see SearchTypes): a note's message type
	// (note, question, answer, decision, or a custom x-... type), another
	// event type (release, pass, close), or "document" for rooms' current
	// documents; any other value is invalid_argument.
	Type string
	// From keeps hits written by this member.
	From string
	// Limit is the most hits returned (default DefaultSearchLimit, at most MaxSearchLimit).
	Limit int
}

// SearchHit is one match, best first.
type SearchHit struct {
	RoomID   string `json:"room_id"`
	RoomPath string `json:"room_path"`
	// RoomName is the name of a named room, whose RoomPath is "".
	RoomName string `json:"room_name,omitempty"`
	// Type is the hit's kind, as SearchQuery.Type filters it.
	Type string `json:"type"`
	// EventSeq is the matching event; 0 for a document hit.
	EventSeq int64 `json:"event_seq,omitempty"`
	// DocVersion is the document version matched; 0 for an event hit.
	DocVersion int64 `json:"doc_version,omitempty"`
	// Section is the heading above the matching paragraph of a document hit.
	Section string `json:"section,omitempty"`
	// From is the event's author, or the writer of the document's matching paragraph.
	From      string    `json:"from_agent_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Snippet is the best matching passage, each match between
	// HighlightStart and HighlightEnd; a "**" of the text itself is
	// written \*\*, as markdown escapes it.
	Snippet string `json:"snippet"`
	// Score is the bm25 relevance: higher is better.
	Score float64 `json:"score"`
}

// Search finds the entries of the room log and documents that contain the
// query's words, ranked by bm25. No membership is needed, and closed rooms
// are searched too.
//
// Errors: invalid_argument (query, room_id, type, from_agent_id, limit),
// room_not_found, search_unavailable.
func (s *Service) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	if err := checkLen("room_id", q.RoomID, MaxIDLen); err != nil {
		return nil, err
	}
	match, err := parseQuery(q.Query)
	if err != nil {
		return nil, err
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxSearchLimit:
		return nil, invalidArg("limit", "limit must be between 0 (the default, %d) and %d, got %d", DefaultSearchLimit, MaxSearchLimit, q.Limit)
	case q.Limit == 0:
		q.Limit = DefaultSearchLimit
	}
	if err := checkSearchType(q.Type); err != nil {
		return nil, err
	}
	if q.From != "" {
		if err := validateAgentID("from_agent_id", q.From); err != nil {
			return nil, err
		}
	}
	var out []SearchHit
	// A write transaction, so the store may index what it has not yet.
	err = s.store.Update(ctx, func(tx Tx) error {
		if q.RoomID != "" {
			if err := roomExists(tx, q.RoomID); err != nil {
				return err
			}
		}
		var err error
		out, err = tx.Search(match, q)
		return err
	})
	if out == nil {
		out = []SearchHit{}
	}
	return out, err
}

// SearchTerm is one word or phrase of a search query.
type SearchTerm struct {
	// Words is a word, or the words of a phrase in order, as typed.
	Words string
	// Prefix makes the term match words as written, unstemmed: its last
	// word every word that begins with it, the words before it (of a
	// phrase) themselves. The words of a term without Prefix match any
	// word with the same stem.
	Prefix bool
}

// SearchMatch is a parsed query: every clause must match, and a clause
// matches when any one of its terms does.
type SearchMatch [][]SearchTerm

// parseQuery turns a query into a SearchMatch, which keeps every character
// of the query a word's, never syntax of the store's: words are ANDed,
// "…" is a phrase, a trailing * a prefix (of a word, or of a phrase's
// last word) and OR (in capitals) joins two terms.
func parseQuery(query string) (SearchMatch, error) {
	if problem := textProblem(query, MaxQueryLen, true); problem != "" {
		return nil, invalidArg("query", "query %s", problem)
	}
	// Control characters separate words (FTS5 would read a NUL as the end
	// of the query).
	query = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, query)
	var m SearchMatch
	pendingOr := false
	add := func(words string, prefix bool) {
		if !strings.ContainsFunc(words, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return
		}
		t := SearchTerm{Words: words, Prefix: prefix}
		if pendingOr && len(m) > 0 {
			m[len(m)-1] = append(m[len(m)-1], t)
		} else {
			m = append(m, []SearchTerm{t})
		}
		pendingOr = false
	}
	rest := query
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				end = len(rest) - 1
			}
			phrase := rest[1 : 1+end]
			rest = rest[min(len(rest), end+2):]
			prefix := strings.HasPrefix(rest, "*")
			add(phrase, prefix)
			rest = strings.TrimLeft(rest, "*")
			continue
		}
		word := rest
		if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
			word = rest[:i]
		}
		rest = rest[len(word):]
		if word == "OR" {
			pendingOr = len(m) > 0
			continue
		}
		prefix := strings.HasSuffix(word, "*")
		add(strings.TrimRight(word, "*"), prefix)
	}
	if len(m) == 0 {
		return nil, invalidArg("query", "query %s has no word to search for", Quote(query)).
			WithHint("give at least one word of letters or digits")
	}
	return m, nil
}
