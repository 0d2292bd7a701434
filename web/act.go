package web

import (
	"errors"
	"net/http"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// actor is who a form of the page acts through: the reader's Service,
// which decides what the reader's role may do, and the reader's own
// member, a person (identity.NamePerson), never one of its agents.
type actor struct {
	viewer
	svc    *stick.Service
	caller stick.Caller
}

// act starts every form that writes: it refuses a form not sent from the
// hub's own page (CSRF) and a reader who must sign in first (with a page
// that says how to keep what was written), then names
// the reader's member. On a refusal it has written the error page and
// returns false; it decides nothing else, the Service does.
func (h *Handler) act(w http.ResponseWriter, r *http.Request) (actor, bool) {
	if !checkCSRF(r) {
		h.fail(w, r, http.StatusForbidden, "The form was not sent from this hub's own page (its CSRF token is missing or wrong).", "Reload the page and send the form from it again.")
		return actor{}, false
	}
	v, err := h.who(w, r)
	if errors.Is(err, errSignIn) {
		// Not a redirect: the sign-in page would drop what the reader
		// wrote, which the browser keeps for Back.
		h.fail(w, r, http.StatusUnauthorized, "Your sign-in has ended (the token was revoked or has expired, or you signed out), so nothing was sent.",
			"Go back with your browser's Back button: what you wrote is still in the form. Sign in again in another tab (at /signin), then send it again.")
		return actor{}, false
	}
	if err != nil {
		h.failErr(w, r, err)
		return actor{}, false
	}
	c, err := identity.NamePerson(v.principal)
	if err != nil {
		h.failErr(w, r, err)
		return actor{}, false
	}
	return actor{viewer: v, svc: h.cfg.ServiceFor(v.principal), caller: c}, true
}
