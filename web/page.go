package web

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"

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
// the sign-in form.
func (h *Handler) failErr(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errSignIn) {
		http.Redirect(w, r, "/signin", http.StatusSeeOther)
		return
	}
	e := stick.AsError(err)
	h.fail(w, r, statusOf(e.Code), render.Text(e.Message), render.Text(e.Hint))
}

// statusOf is the HTTP status of an error code.
func statusOf(code stick.Code) int {
	switch code {
	case stick.CodeInvalidArgument:
		return http.StatusBadRequest
	case stick.CodeUnauthenticated:
		return http.StatusUnauthorized
	case stick.CodeForbidden:
		return http.StatusForbidden
	case stick.CodeRoomNotFound:
		return http.StatusNotFound
	case "rate_limited":
		return http.StatusTooManyRequests
	case stick.CodeDBBusy, stick.CodeCanceled, "shutting_down":
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{}
