package web

import (
	"net/http"
	"strings"

	"github.com/stickhq/stick/stick"
)

// bearer reads the page as the principal of an Authorization: Bearer
// header, for scripts and curl: a request that carries one is read as
// that token's principal, without a cookie (and not signed in: it has no
// session to sign out of). ok is false for a request without the header.
// A bearer header with no token, or whose token is unknown, revoked or
// expired, is unauthenticated (401, with WWW-Authenticate): a request
// that names a token is never read as another principal, nor as the
// local one of an open hub. A header of another scheme is ignored (a
// reverse proxy's own authentication may send one).
//
// Forms still need the CSRF pair, cookie and field, whatever the
// request's credential: a browser never sends an Authorization header of
// its own to another site, so a bearer request is no forgery, but one
// rule for every form keeps the check in one place (act), and a script
// that means to write uses the hub's JSON API, whose calls need no CSRF.
// So a bearer-only POST of a form is refused (403) unless it also
// carries the CSRF cookie and field.
func (h *Handler) bearer(w http.ResponseWriter, r *http.Request) (v viewer, ok bool, err error) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return viewer{}, false, nil
	}
	scheme, secret, _ := strings.Cut(auth, " ")
	secret = strings.TrimSpace(secret)
	if !strings.EqualFold(scheme, "Bearer") {
		// Another scheme is not ours: a reverse proxy's Basic
		// authentication in front of the hub, say. The page reads by
		// its cookie, as if the header were not there.
		return viewer{}, false, nil
	}
	if secret == "" || h.cfg.Authenticate == nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="stick"`)
		return viewer{}, true, stick.Errorf(stick.CodeUnauthenticated, "the Authorization header is not a bearer token this hub knows").
			WithHint("send 'Authorization: Bearer TOKEN' with a token made by 'stick token create NAME', or sign in on the page")
	}
	p, err := h.cfg.Authenticate(r, secret)
	if err != nil {
		if stick.ErrorCode(err) == stick.CodeUnauthenticated {
			w.Header().Set("WWW-Authenticate", `Bearer realm="stick", error="invalid_token"`)
		}
		return viewer{}, true, err
	}
	return viewer{principal: p}, true, nil
}
