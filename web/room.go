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

// roomBody is the body of a room's page.
type roomBody struct {
	ID, Name, Kind, State string
	Closed                bool
	ClosedAt              *time.Time
	// Conclusion and CloseReason are those of a closed room's close.
	Conclusion, CloseReason, ClosedBy string
	Turn                              int64
	// Roster is the room's holder, next and members, which the live
	// stream sends again as they change.
	Roster rosterView
	// Act is what the reader may do in the room by hand (see actView);
	// nil for a reader whose role may not write.
	Act    *actView
	Events []eventView
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
	h.room(w, r, http.StatusOK, nil)
}

// room writes the page of a room with status; form, when not nil, is a
// form of the page sent back with what the reader wrote and why it was
// refused (see act).
func (h *Handler) room(w http.ResponseWriter, r *http.Request, status int, form *actForm) {
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
	body := roomBody{Act: h.actOf(r, v, st, form), Roster: rosterOf(st, now)}
	st = render.SafeStatus(st)
	body.ID, body.State, body.Closed, body.ClosedAt = st.RoomID, string(st.State), st.State == stick.StateClosed, st.ClosedAt
	body.Turn, body.Now, body.Newest = st.TurnID, now, before > 0
	body.Name, body.Kind = roomName(st.RoomName, st.RoomKey, st.CanonicalPath, st.RoomID)
	for _, e := range tail.Events {
		body.Events = append(body.Events, viewOf(e))
	}
	if err := h.pairAnswers(ctx, svc, id, body.Events, before == 0, body.Act != nil); err != nil {
		h.failErr(w, r, err)
		return
	}
	if tail.Earlier && len(tail.Events) > 0 {
		body.Older = tail.Events[0].Seq
	}
	if before == 0 && !body.Closed {
		// The roster's signature tells the stream which roster the page
		// shows, so it sends one only when it differs.
		body.Live = "/rooms/" + st.RoomID + "/live?after=" + strconv.FormatInt(tail.Cursor, 10) + "&roster=" + body.Roster.Sig
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
	h.show(w, r, status, "room", v, body.Name, body)
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
