package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/workspace"
)

// roomRow is one room of the list, its texts made safe.
type roomRow struct {
	ID, Name, Kind  string
	State           string
	Closed          bool
	Holder, Reserve string
	Members, Active int
	Turn            int64
	LastActivity    time.Time
	// Search is the room's words, lower case, that the filter matches.
	Search string
}

// roomsBody is the body of the list of rooms.
type roomsBody struct {
	Query     string
	Rooms     []roomRow
	Total     int
	Now       time.Time
	NoneShown bool
	NoneAtAll bool
	// Live is the URL of the stream of the list's changes (see
	// serveRoomsLive); Sig names what the list shows, so a page swaps in
	// only a list that differs.
	Live, Sig string
}

// serveRooms lists every room the reader may see, open ones first, the
// most recently active first; q keeps those whose words contain it.
func (h *Handler) serveRooms(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	sums, err := h.cfg.ServiceFor(v.principal).ListRooms(r.Context(), "")
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	body := roomsBodyOf(sums, r.URL.Query().Get("q"), h.cfg.Now())
	h.show(w, r, http.StatusOK, "rooms", v, "Rooms", body)
}

// roomsBodyOf makes the list of the rooms sums that the filter q keeps,
// open ones first, the most recently active first: what the page shows,
// and what its live stream sends again when the rooms change.
func roomsBodyOf(sums []stick.RoomSummary, raw string, now time.Time) roomsBody {
	q := render.Line(strings.TrimSpace(raw))
	body := roomsBody{Query: q, Total: len(sums), Now: now, NoneAtAll: len(sums) == 0,
		Live: "/rooms/live?q=" + url.QueryEscape(strings.TrimSpace(raw))}
	for _, s := range sums {
		row := rowOf(s)
		if q != "" && !strings.Contains(row.Search, strings.ToLower(q)) {
			continue
		}
		body.Rooms = append(body.Rooms, row)
	}
	slices.SortStableFunc(body.Rooms, func(a, b roomRow) int {
		if a.Closed != b.Closed {
			if a.Closed {
				return 1
			}
			return -1
		}
		return b.LastActivity.Compare(a.LastActivity)
	})
	body.NoneShown = len(body.Rooms) == 0 && !body.NoneAtAll
	body.Sig = signature(body.Query, body.Rooms, body.Total)
	return body
}

// rowOf makes the row of a room.
func rowOf(s stick.RoomSummary) roomRow {
	name, kind := roomName(s.RoomName, s.RoomKey, s.CanonicalPath, s.RoomID)
	row := roomRow{ID: render.Line(s.RoomID), Name: name, Kind: kind, State: render.Line(string(s.State)),
		Closed: s.State == stick.StateClosed, Holder: render.Line(s.Owner), Reserve: render.Line(s.ReservedFor),
		Members: s.Members, Active: s.ActiveMembers, Turn: s.TurnID,
		LastActivity: later(s.LastEventAt, s.UpdatedAt)}
	words := []string{row.Name, row.ID, render.Line(s.RoomKey), render.Line(s.CanonicalPath), row.State, row.Holder, row.Reserve}
	words = append(words, render.Lines(s.Joined)...)
	row.Search = strings.ToLower(strings.Join(words, " "))
	return row
}

// roomName is what a room is called on the page, and what kind of name
// it is: its name, else its repository's key (github.com/acme/api), else
// its path (a local key says no more than the path and its host's id),
// else its id.
func roomName(name, key, path, id string) (string, string) {
	switch {
	case name != "":
		return render.Line(name), "named room"
	case key != "" && !workspace.IsLocalKey(key):
		return render.Line(key), "workspace"
	case path != "":
		return render.Line(path), "folder"
	}
	return render.Line(id), "room"
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
