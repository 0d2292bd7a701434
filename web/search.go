package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// searchBody is the body of the search page.
type searchBody struct {
	// Query and Type are the search as asked, made safe to show.
	Query, Type string
	// Types are the kinds of hit the form offers to keep.
	Types []string
	// Searched is set once a query was given.
	Searched bool
	Hits     []hitView
	// Error and Hint are the Service's refusal of the search.
	Error, Hint string
}

// hitView is one search hit: where it is, what and whose, when, and its
// snippet in pieces, the matches marked (stick.SplitSnippet), each piece
// made safe with render.Text and then escaped by html/template: no text
// of a room is ever joined into HTML.
type hitView struct {
	RoomID, RoomName string
	// Link is the hit on its room's page: the event on the page that
	// shows it, or the room's document.
	Link string
	// Where is "#seq", or "document v3" and the section of a document hit.
	Where   string
	Section string
	Type    string
	From    string
	At      time.Time
	Parts   []stick.SnippetPart
}

// serveSearch searches every room the reader may see (the Service
// decides which) with the query language of 'stick search', best match
// first. With no query it shows the form only; a query the Service
// refuses shows its message beside the form.
func (h *Handler) serveSearch(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	q := r.URL.Query()
	query, typ := strings.TrimSpace(q.Get("q")), strings.TrimSpace(q.Get("type"))
	body := searchBody{Query: render.Line(query), Type: render.Line(typ), Types: stick.SearchTypes, Searched: query != ""}
	if !body.Searched {
		h.show(w, r, http.StatusOK, "search", v, "Search", body)
		return
	}
	svc := h.cfg.ServiceFor(v.principal)
	ctx := r.Context()
	hits, err := svc.Search(ctx, stick.SearchQuery{Query: query, Type: typ})
	if err == nil {
		body.Hits, err = h.hitViews(ctx, svc, hits)
	}
	if err != nil {
		status, msg, hint := h.words(r, err)
		body.Error, body.Hint = msg, hint
		h.show(w, r, status, "search", v, "Search", body)
		return
	}
	h.show(w, r, http.StatusOK, "search", v, "Search: "+body.Query, body)
}

// hitViews makes the views of hits, each linked to where its room's page
// shows it.
func (h *Handler) hitViews(ctx context.Context, svc *stick.Service, hits []stick.SearchHit) ([]hitView, error) {
	out := make([]hitView, 0, len(hits))
	for _, hit := range hits {
		name, _ := roomName(hit.RoomName, "", hit.RoomPath, hit.RoomID)
		hv := hitView{RoomID: render.Line(hit.RoomID), RoomName: name, Type: render.Line(hit.Type), From: render.Line(hit.From),
			At: hit.CreatedAt, Section: render.Line(hit.Section)}
		for _, p := range stick.SplitSnippet(hit.Snippet) {
			hv.Parts = append(hv.Parts, stick.SnippetPart{Text: render.Text(p.Text), Match: p.Match})
		}
		room := "/rooms/" + hit.RoomID
		if hit.EventSeq == 0 {
			hv.Where = "document v" + strconv.FormatInt(hit.DocVersion, 10)
			hv.Link = room + "#doc-h"
		} else {
			hv.Where = "#" + strconv.FormatInt(hit.EventSeq, 10)
			before, err := pageOf(ctx, svc, hit.RoomID, hit.EventSeq)
			if err != nil {
				return nil, err
			}
			hv.Link = room + "#e" + strconv.FormatInt(hit.EventSeq, 10)
			if before > 0 {
				hv.Link = room + "?before=" + strconv.FormatInt(before, 10) + "#e" + strconv.FormatInt(hit.EventSeq, 10)
			}
		}
		out = append(out, hv)
	}
	return out, nil
}

// pageOf returns the before of the room's page that shows the event seq
// near its middle (half a page of newer events below it), or 0 when the
// room's newest page shows it: fewer than half a page of events came
// after it. A room out of the reader's reach or gone since the search
// links to its newest page.
func pageOf(ctx context.Context, svc *stick.Service, roomID string, seq int64) (int64, error) {
	after, err := svc.RoomEvents(ctx, roomID, seq, pageSize/2)
	switch {
	case stick.ErrorCode(err) == stick.CodeRoomNotFound:
		return 0, nil
	case err != nil:
		return 0, err
	case !after.HasMore || len(after.Events) == 0:
		return 0, nil
	}
	return after.Events[len(after.Events)-1].Seq + 1, nil
}
