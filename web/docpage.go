package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// roomRef names the room a document page belongs to.
type roomRef struct {
	ID, Name, Kind string
	Closed         bool
}

// versionRow is one version of a document in its history.
type versionRow struct {
	// Version is the version's number, Prev the one before it.
	Version, Prev int64
	Author        string
	Op            string
	Size          int
	At            time.Time
	// Current marks the newest version, Shown the one the page shows.
	Current, Shown bool
}

// docBody is the body of a document's page.
type docBody struct {
	Room roomRef
	// Version is the version shown, Newest the current one (0 for a
	// document no one has written).
	Version, Newest int64
	Author, Op      string
	At              time.Time
	Size            int
	Empty           bool
	// HTML is the version rendered from markdown; Source, with
	// ViewSource, is its text.
	HTML       template.HTML
	Source     string
	ViewSource bool
	// History is every version, newest first.
	History []versionRow
	// From and To are the versions the diff form picks at first.
	From, To int64
	// MayEdit is set when the reader may write the document: the room is
	// open and the reader's role may (stick.Access).
	MayEdit bool
}

// serveDoc shows a version of a room's document (the current one, or
// ?version=N), rendered from markdown or, with ?view=source, as its text;
// who wrote it and when; and the document's history, with a form to
// compare two versions.
func (h *Handler) serveDoc(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	version, ok := h.versionParam(w, r, "version")
	if !ok {
		return
	}
	svc := h.cfg.ServiceFor(v.principal)
	ctx := r.Context()
	room, hist, err := docRoom(ctx, svc, r.PathValue("room_id"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	newest := newestVersion(hist)
	if version > newest {
		h.noVersion(w, r, room, version, newest)
		return
	}
	doc, err := svc.ReadDoc(ctx, room.ID, version)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	doc = render.SafeDocument(doc)
	body := docBody{Room: room, Version: doc.Version, Newest: newest, Author: doc.Author, Op: string(doc.Op),
		At: doc.CreatedAt, Size: doc.Size, Empty: doc.Version == 0,
		ViewSource: r.URL.Query().Get("view") == "source", MayEdit: mayWriteDoc(v, room),
		History: historyRows(hist, doc.Version), To: doc.Version, From: max(doc.Version-1, 0)}
	if body.ViewSource {
		body.Source = doc.Content
	} else {
		body.HTML = markdownHTML(doc.Content)
	}
	title := "Document of " + room.Name
	if version != 0 {
		title = fmt.Sprintf("Version %d of the document of %s", version, room.Name)
	}
	h.show(w, r, http.StatusOK, "doc", v, title, body)
}

// docRoom reads the room a document page is about and its document's
// history, oldest first.
func docRoom(ctx context.Context, svc *stick.Service, id string) (roomRef, []stick.DocVersion, error) {
	st, err := svc.RoomState(ctx, id)
	if err != nil {
		return roomRef{}, nil, err
	}
	hist, err := svc.DocHistory(ctx, st.RoomID)
	if err != nil {
		return roomRef{}, nil, err
	}
	room := roomRef{ID: render.Line(st.RoomID), Closed: st.State == stick.StateClosed}
	room.Name, room.Kind = roomName(st.RoomName, st.RoomKey, st.CanonicalPath, st.RoomID)
	return room, hist, nil
}

// newestVersion is the current version of a document of history hist, 0
// for one no one has written.
func newestVersion(hist []stick.DocVersion) int64 {
	var n int64
	for _, v := range hist {
		n = max(n, v.Version)
	}
	return n
}

// historyRows is a document's history, newest first, made safe to show,
// with shown marked.
func historyRows(hist []stick.DocVersion, shown int64) []versionRow {
	rows := make([]versionRow, 0, len(hist))
	newest := newestVersion(hist)
	for _, v := range slices.Backward(hist) {
		rows = append(rows, versionRowOf(v, newest, shown))
	}
	return rows
}

func versionRowOf(v stick.DocVersion, newest, shown int64) versionRow {
	v = render.SafeDocVersion(v)
	return versionRow{Version: v.Version, Prev: max(v.Version-1, 0), Author: v.Author, Op: string(v.Op), Size: v.Size, At: v.CreatedAt,
		Current: v.Version == newest, Shown: v.Version == shown}
}

// mayWriteDoc reports whether the page offers v to write the document of
// room: the room is open and v's role may write documents (the
// Service's own table, stick.Access). The Service decides again on
// every write; this only spares a reader who may not a form that would
// be refused.
func mayWriteDoc(v viewer, room roomRef) bool {
	need, ok := stick.Access(stick.ActionUpdateDoc)
	return ok && !room.Closed && v.principal.Role.AtLeast(need)
}

// versionParam reads a query parameter naming a version of a document:
// absent is 0, anything but a number from 0 up is a 400 page.
func (h *Handler) versionParam(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	raw := r.URL.Query().Get(name)
	if raw == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		h.fail(w, r, http.StatusBadRequest,
			fmt.Sprintf("%s must be the number of a version of the document, not %q.", name, render.Line(raw)),
			"Pick a version from the history on the document's page.")
		return 0, false
	}
	return n, true
}

// noVersion is the 404 page of a version a document does not have.
func (h *Handler) noVersion(w http.ResponseWriter, r *http.Request, room roomRef, version, newest int64) {
	msg := fmt.Sprintf("The document of %s has no version %d: its newest version is %d.", room.Name, version, newest)
	if newest == 0 {
		msg = fmt.Sprintf("The document of %s has no version %d: no one has written it yet.", room.Name, version)
	}
	h.fail(w, r, http.StatusNotFound, msg, "Pick a version from the history on the document's page, /rooms/"+room.ID+"/doc.")
}

// inlineSource is the longest document whose text a room's page holds
// besides its rendering; a longer one's is a link away (?view=source).
const inlineSource = 64 << 10
