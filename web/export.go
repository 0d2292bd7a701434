package web

import (
	"bytes"
	"mime"
	"net/http"
	"strings"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// serveExport downloads a room whole (state, members, document and every
// event with its handoff) as 'stick export' writes it: as markdown
// (render.Markdown; format md, the default) or as JSON (render.
// TranscriptJSON; format json), read in one transaction by stick.Service.
// Transcript, as an attachment named after the room.
func (h *Handler) serveExport(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	format := r.URL.Query().Get("format")
	switch format {
	case "", "md", "markdown":
		format = "md"
	case "json":
	default:
		h.fail(w, r, http.StatusBadRequest, "format must be md or json, not "+render.Line(stick.Quote(format))+".", "Use the export links of the room's page.")
		return
	}
	t, err := h.cfg.ServiceFor(v.principal).Transcript(r.Context(), r.PathValue("room_id"), 0)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	var b bytes.Buffer
	ctype := "text/markdown; charset=utf-8"
	if format == "json" {
		ctype = "application/json"
		if err := render.TranscriptJSON(&b, t); err != nil {
			h.failErr(w, r, err)
			return
		}
	} else {
		render.Markdown(&b, t)
	}
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": exportName(t.Room, format)}))
	hd.Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}

// exportName is the file name of a room's export: the room's name, key or
// path as a slug (stick.Slugify, at most 48 bytes), its id, and the
// format's extension, so that it is a plain file name on every system.
func exportName(st stick.RoomStatus, ext string) string {
	name := st.RoomName
	if name == "" {
		name = st.RoomKey
	}
	if name == "" {
		name = st.CanonicalPath
	}
	slug := stick.Slugify(name)
	if len(slug) > 48 {
		slug = strings.TrimRight(slug[:48], "-")
	}
	id := stick.Slugify(st.RoomID)
	if strings.HasPrefix(st.RoomID, "room_") {
		id = "room_" + stick.Slugify(strings.TrimPrefix(st.RoomID, "room_"))
	}
	if slug == "" {
		return id + "." + ext
	}
	return slug + "-" + id + "." + ext
}
