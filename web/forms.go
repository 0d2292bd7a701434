package web

import (
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// maxForm bounds the body of every form of the page but the document's
// edit form (maxEditForm): room for a text of 1 MB pasted in any field (a
// note, a handoff's status), which comes back in the form with the
// Service's own error and the text kept, and the form's other fields.
const maxForm = 2 << 20

// formType is the one encoding the page's forms are sent in: none has a
// file to upload, so none is multipart.
const formType = "application/x-www-form-urlencoded"

// readForm reads the body of a POST before any handler sees it, so that
// no form reads an unbounded body (the CSRF check reads the body first,
// and anyone may set their own CSRF cookie): it takes only formType, and
// at most maxForm bytes, maxEditForm for the edit form. Past the bound,
// or in another encoding, it writes the error page and returns false.
func (h *Handler) readForm(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return true
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != formType {
		h.fail(w, r, http.StatusUnsupportedMediaType,
			"This hub's page takes forms sent as "+formType+" only, not "+stick.Quote(render.Line(r.Header.Get("Content-Type")))+".",
			"Send the form from the hub's own page; a program writes through the hub's JSON API instead.")
		return false
	}
	limit, what, hint := int64(maxForm), "a form", "Go back, shorten what you wrote, and send the form again."
	if _, pattern := h.mux.Handler(r); pattern == editPattern {
		limit, what = maxEditForm, "the edit form (a document may hold at most "+strconv.Itoa(stick.MaxDocLen)+" bytes)"
		hint = "Go back, shorten the text, and save again."
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.fail(w, r, http.StatusRequestEntityTooLarge,
				"The form sent is larger than this hub takes for "+what+": at most "+sizeOf(limit)+". Nothing was saved.", hint)
			return false
		}
		h.fail(w, r, http.StatusBadRequest, "The form could not be read: "+render.Line(err.Error())+".", "Open the page again and send the form from it.")
		return false
	}
	return true
}

// sizeOf writes a size in bytes as people read it: 1 MB, 6 MB, 800 KB.
func sizeOf(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
