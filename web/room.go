package web

import (
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// pageSize is how many events a room's page shows: its newest ones, and
// older ones a page at a time, so a room with a long log opens as fast as
// a new one.
const pageSize = 100

// memberRow is one member of the roster.
type memberRow struct {
	AgentID, DisplayName, Kind, Status string
	Holder, Reserved                   bool
	LastSeen                           time.Time
}

// roomBody is the body of a room's page.
type roomBody struct {
	ID, Name, Kind, State string
	Closed                bool
	ClosedAt              *time.Time
	// Conclusion and CloseReason are those of a closed room's close.
	Conclusion, CloseReason, ClosedBy string
	Holder, Reserved, Concluder       string
	// LeaseLeft is the time left on the holder's lease, "" with no
	// holder; LeaseOver is set when it has run out.
	LeaseLeft string
	LeaseOver bool
	ClaimLeft string
	Takeover  string
	Turn      int64
	Members   []memberRow
	Events    []eventView
	// Older is the before of the page of older events, 0 when there is
	// none; Newest is set on a page of older events.
	Older  int64
	Newest bool
	// Live is the URL of the live stream of a page of the newest events.
	Live     string
	Doc      string
	DocVer   int64
	DocBy    string
	DocEmpty bool
	Now      time.Time

	// DocHTML is the document rendered from markdown (markdownHTML);
	// DocSource is set when the page holds its text too, which a short
	// document's page does; DocEdit when the reader may write it.
	DocHTML   template.HTML
	DocSource bool
	DocEdit   bool
}

// serveRoom shows one room: its conclusion when closed, its roster, the
// newest page of its feed (or, with before, the page before that
// event), and its document.
func (h *Handler) serveRoom(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	id := r.PathValue("room_id")
	var before int64
	if raw := r.URL.Query().Get("before"); raw != "" {
		if before, err = strconv.ParseInt(raw, 10, 64); err != nil || before <= 0 {
			h.fail(w, r, http.StatusBadRequest, "before must be the number of an event of the room.", "Follow the page's own 'Older events' link.")
			return
		}
	}
	svc := h.cfg.ServiceFor(v.principal)
	ctx := r.Context()
	st, err := svc.RoomState(ctx, id)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	var tail stick.EventTail
	if before > 0 {
		tail, err = svc.EventsBefore(ctx, id, before, pageSize)
	} else {
		tail, err = svc.TailEvents(ctx, id, pageSize)
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	doc, err := svc.ReadDoc(ctx, id, 0)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	now := h.cfg.Now()
	st = render.SafeStatus(st)
	body := roomBody{ID: st.RoomID, State: string(st.State), Closed: st.State == stick.StateClosed, ClosedAt: st.ClosedAt,
		Holder: st.Owner, Reserved: st.ReservedFor, Concluder: st.Concluder, Takeover: render.Line(string(st.Takeover)),
		Turn: st.TurnID, Now: now, Newest: before > 0}
	body.Name, body.Kind = roomName(st.RoomName, st.RoomKey, st.CanonicalPath, st.RoomID)
	if st.Owner != "" && st.LeaseExpires != nil {
		left := st.LeaseExpires.Sub(now).Round(time.Second)
		body.LeaseOver = left <= 0
		body.LeaseLeft = render.Duration(max(left, 0))
	}
	if st.ReservedFor != "" && st.ClaimExpires != nil {
		body.ClaimLeft = render.Duration(max(st.ClaimExpires.Sub(now).Round(time.Second), 0))
	}
	for _, m := range st.Members {
		body.Members = append(body.Members, memberRow{AgentID: m.AgentID, DisplayName: m.DisplayName, Kind: render.Line(string(m.Kind)),
			Status: m.Status, Holder: m.TurnRole == "holder", Reserved: m.TurnRole == "reserved", LastSeen: m.LastSeenAt})
	}
	for _, e := range tail.Events {
		body.Events = append(body.Events, viewOf(e))
	}
	if tail.Earlier && len(tail.Events) > 0 {
		body.Older = tail.Events[0].Seq
	}
	if before == 0 && !body.Closed {
		body.Live = "/rooms/" + st.RoomID + "/live?after=" + strconv.FormatInt(tail.Cursor, 10)
	}
	if body.Closed {
		if err := h.conclusion(r, svc, id, &body); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
	doc = render.SafeDocument(doc)
	body.Doc, body.DocVer, body.DocBy, body.DocEmpty = doc.Content, doc.Version, doc.Author, doc.Content == ""
	body.DocHTML, body.DocSource = markdownHTML(doc.Content), len(doc.Content) <= inlineSource
	body.DocEdit = mayWriteDoc(v, roomRef{Closed: body.Closed})
	h.show(w, r, http.StatusOK, "room", v, body.Name, body)
}

// conclusion fills in the close of a closed room: its newest close event.
func (h *Handler) conclusion(r *http.Request, svc *stick.Service, id string, body *roomBody) error {
	tail, err := svc.TailEvents(r.Context(), id, 20)
	if err != nil {
		return err
	}
	for i := len(tail.Events) - 1; i >= 0; i-- {
		if e := tail.Events[i]; e.Type == stick.EventClose {
			e = render.SafeEvent(e)
			body.Conclusion, body.CloseReason, body.ClosedBy = e.Text, e.Reason, e.From
			return nil
		}
	}
	return nil
}
