package web

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"

	"github.com/stickhq/stick/internal/httpcode"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// page is what the layout shows around a page's content.
type page struct {
	Title string
	CSRF  string
	// SignedIn is set when the reader signed in with a token (and may
	// sign out); Who and Role name the principal.
	SignedIn  bool
	Who, Role string
	Body      any
}

// show writes the page name with status.
func (h *Handler) show(w http.ResponseWriter, r *http.Request, status int, name string, v viewer, title string, body any) {
	p := page{Title: title, CSRF: h.csrf(w, r), SignedIn: v.signedIn, Who: render.Line(v.principal.Name),
		Role: string(v.principal.Role), Body: body}
	var b bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&b, "layout", p); err != nil {
		http.Error(w, "the page could not be made", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// problem is the body of the error page.
type problem struct {
	Message, Hint string
}

// fail writes the error page.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, message, hint string) {
	h.show(w, r, status, "error", viewer{}, "Error", problem{Message: message, Hint: hint})
}

// failErr writes the error page of err; errSignIn sends the reader to
// the sign-in form, which brings it back to the page asked for.
func (h *Handler) failErr(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errSignIn) {
		http.Redirect(w, r, signinURL(r), http.StatusSeeOther)
		return
	}
	status, message, hint := h.words(r, err)
	h.fail(w, r, status, message, hint)
}

// words is what the page says of err: its status (the API's, statusOf),
// and its message and hint made safe. An internal error (500) says only
// that the hub failed, and where to look: its text may name the hub's
// files or say what failed inside it, so it goes to the hub's log
// (Config.Report) and not to the reader.
func (h *Handler) words(r *http.Request, err error) (status int, message, hint string) {
	e := stick.AsError(err)
	status = statusOf(e.Code)
	if status != http.StatusInternalServerError {
		return status, render.Text(e.Message), render.Text(e.Hint)
	}
	id := ""
	if h.cfg.Report != nil {
		id = render.Line(h.cfg.Report(r, err))
	}
	if id == "" {
		return status, "The hub could not answer this page; its log has the details.", "Try again later; if it keeps failing, the hub's operator finds the cause in its log."
	}
	return status, "The hub could not answer this page; its log has the details (request " + id + ").",
		"Try again later; if it keeps failing, the hub's operator finds the cause in its log under request " + id + "."
}

// streamErr answers a live stream's request that fails before the
// stream begins: as plain text (an EventSource reads no page), in the
// words of the error page; a reader who must sign in gets a 401, which
// an EventSource takes as final, never the redirect a page gets.
func (h *Handler) streamErr(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errSignIn) {
		http.Error(w, "sign in first", http.StatusUnauthorized)
		return
	}
	status, message, _ := h.words(r, err)
	http.Error(w, message, status)
}

// statusOf is the HTTP status of an error code: the JSON API's
// (httpcode.Status), so a refusal has the same status on the page.
func statusOf(code stick.Code) int { return httpcode.Status(code) }

// funcs are the templates' helpers.
var funcs = template.FuncMap{}
