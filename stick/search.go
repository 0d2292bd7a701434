package stick

import (
	"context"
	"slices"
	"time"
)

// MaxQueryLen bounds a search query.
const MaxQueryLen = 1 << 10

// Highlight markers around each match in a SearchHit's Snippet (markdown bold).
const (
	HighlightStart = "**"
	HighlightEnd   = "**"
)

// DocumentHit is the Type of a search hit in a room's current document.
const DocumentHit = "document"

// SearchQuery is a full-text search over the text SearchText finds in a
// room's log (notes, handoffs' status, next action and open questions,
// close reasons and conclusions) and the paragraphs of each room's
// current document (Paragraphs).
type SearchQuery struct {
	// Query is words to find, all of them, in the language ParseQuery
	// reads: "word" matches word, words and wording alike (stemmed),
	// "word*" any word that begins so as written (migration* finds
	// migrations, not migrate), "a phrase" in double quotes the words in
	// order, and OR between two terms either one. A store reads the
	// parsed SearchMatch instead, and of SearchQuery only the filters and
	// the limit.
	Query string
	// RoomID limits the search to one room; "" searches every room.
	RoomID string
	// InRooms, when not nil, keeps hits of these rooms only (an empty,
	// non-nil list keeps none). A Service acting for a principal limited
	// to some rooms (see As) sets it to the rooms the principal reaches,
	// or to those of them a caller's list names; at most MaxSearchRooms.
	InRooms []string
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

// SearchHit is one match. Hits come best first: how a store ranks them
// is its own business.
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
	// written \*\* (EscapedMarker), as markdown escapes it. SplitSnippet
	// reads it.
	Snippet string `json:"snippet"`
	// Score is how well the hit matches, as the store ranks it: higher is
	// better, and scores compare only hits of one search.
	Score float64 `json:"score"`
}

// Search finds the entries of the room log and documents that contain the
// query's words, best first. It sees every event and document committed
// before it began. No membership is needed, and closed rooms are searched
// too; a Service acting for a principal searches only the rooms the
// principal reaches. It reads in a View transaction; a store that indexes lazily (a
// SearchIndexer) is first asked to catch up.
//
// Errors: invalid_argument (query, room_id, in_rooms, type,
// from_agent_id, limit), room_not_found, search_unavailable, db_busy
// (catching up the index).
func (s *Service) Search(ctx context.Context, q SearchQuery) ([]SearchHit, error) {
	if err := s.allow(ActionSearch); err != nil {
		return nil, err
	}
	if err := checkLen("room_id", q.RoomID, MaxIDLen); err != nil {
		return nil, err
	}
	if len(q.InRooms) > MaxSearchRooms {
		return nil, invalidArg("in_rooms", "in_rooms lists %d rooms; at most %d are allowed", len(q.InRooms), MaxSearchRooms)
	}
	for _, id := range q.InRooms {
		if err := checkLen("in_rooms", id, MaxIDLen); err != nil {
			return nil, err
		}
	}
	match, err := ParseQuery(q.Query)
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
	if ix, ok := s.store.(SearchIndexer); ok {
		if err := ix.CatchUpSearch(ctx); err != nil {
			return []SearchHit{}, err
		}
	}
	var out []SearchHit
	err = s.store.View(ctx, func(tx Tx) error {
		if q.RoomID != "" {
			if err := s.roomExists(tx, q.RoomID); err != nil {
				return err
			}
		}
		q := q
		if q.RoomID == "" && s.principal != nil && !s.principal.Rooms.All() {
			ids, err := s.reachableIDs(tx, q.InRooms)
			if err != nil || len(ids) == 0 {
				return err
			}
			q.InRooms = ids
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

// reachableIDs returns the ids of the rooms s reaches, of those in (every
// room when in is nil), sorted.
func (s *Service) reachableIDs(tx Tx, in []string) ([]string, error) {
	rooms, err := tx.RoomsUnder("", true)
	if err != nil {
		return nil, err
	}
	ids := []string{}
	for _, r := range s.reachable(rooms) {
		if in == nil || slices.Contains(in, r.ID) {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
