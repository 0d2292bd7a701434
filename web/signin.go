package web

import (
	"net/http"
	"strings"

	"github.com/stickhq/stick/stick"
)

// signinForm is the body of the sign-in page.
type signinForm struct {
	// Open is set on a hub that needs no token.
	Open  bool
	Error string
	// Next is the page of this hub the reader goes to once signed in
	// (localPath).
	Next string
}

// serveSignin shows the sign-in form.
func (h *Handler) serveSignin(w http.ResponseWriter, r *http.Request) {
	open, err := h.open(r.Context())
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.show(w, r, http.StatusOK, "signin", viewer{}, "Sign in", signinForm{Open: open, Next: localPath(r.URL.Query().Get("next"))})
}

// signin checks the token of the form and keeps it in the session cookie
// (see sessionCookieOf), then goes to the form's next page, one of this
// hub's own (localPath), "/" by default.
func (h *Handler) signin(w http.ResponseWriter, r *http.Request) {
	if !checkCSRF(r) {
		h.fail(w, r, http.StatusForbidden, "The form was not sent from this hub's own page (its CSRF token is missing or wrong).", "Open the sign-in page again and send the form from it.")
		return
	}
	secret := strings.TrimSpace(r.PostFormValue("token"))
	next := localPath(r.PostFormValue("next"))
	if secret == "" || h.cfg.Authenticate == nil {
		h.show(w, r, http.StatusUnauthorized, "signin", viewer{}, "Sign in", signinForm{Error: "Give a token made on the hub's host with 'stick token create NAME'.", Next: next})
		return
	}
	if _, err := h.cfg.Authenticate(r, secret); err != nil {
		msg := "That token is not valid: unknown, revoked or expired."
		status := http.StatusUnauthorized
		if code := stick.ErrorCode(err); code != stick.CodeUnauthenticated {
			status, msg, _ = h.words(r, err)
		}
		h.show(w, r, status, "signin", viewer{}, "Sign in", signinForm{Error: msg, Next: next})
		return
	}
	http.SetCookie(w, h.sessionCookieOf(r, secret, 0))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signout clears the session cookie.
func (h *Handler) signout(w http.ResponseWriter, r *http.Request) {
	if !checkCSRF(r) {
		h.fail(w, r, http.StatusForbidden, "The form was not sent from this hub's own page (its CSRF token is missing or wrong).", "Sign out with the button of the page.")
		return
	}
	http.SetCookie(w, h.sessionCookieOf(r, "", -1))
	http.Redirect(w, r, "/signin", http.StatusSeeOther)
}
