package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config wires the page to a hub.
type Config struct {
	// ServiceFor returns the Service a principal reads through: the hub's
	// Service restricted to the principal's role and rooms. Required.
	ServiceFor func(stick.Principal) *stick.Service
	// Authenticate returns the principal a token's secret stands for
	// (the hub's check, with its limit on failures); nil on a hub without
	// tokens.
	Authenticate func(r *http.Request, secret string) (stick.Principal, error)
	// Open reports whether the hub answers without a token: then a page
	// is read as Local, with no sign-in. nil means never.
	Open func(ctx context.Context) (bool, error)
	// Local is who reads the page of an open hub.
	Local stick.Principal
	// Secure reports whether to mark the cookies Secure even on a request
	// that did not come over TLS itself: a hub whose public URL is https,
	// behind a proxy. It is asked at every cookie, so a public URL an
	// operator changes takes effect at once. nil means never.
	Secure func() bool
	// BeginStream registers a live stream in the given Service, so that
	// the hub's stop ends it at once; it returns false once the hub
	// stops. nil registers nothing.
	BeginStream func(svc *stick.Service) (end func(), ok bool)
	// Done is closed when the hub stops: every live stream ends. nil
	// never closes.
	Done <-chan struct{}
	// KeepAlive is how often a quiet live stream sends a comment, so
	// proxies keep it open (default 25 s).
	KeepAlive time.Duration
	// Now is the clock of the times the page shows, and of how often a
	// live stream checks its credential again (default time.Now).
	Now func() time.Time
	// Hub tells the connect and settings pages what the hub says of
	// itself (HubInfo), read afresh: the page calls it after an operator
	// set the public URL, and the hub takes the new one up. nil: a hub
	// that tells nothing, whose pages say so.
	Hub func(ctx context.Context) (HubInfo, error)
	// Report records an error the page answered with a 500, whose text
	// the reader is not shown (it may name the hub's files or say what
	// failed inside it), in the hub's log, and returns the id the log
	// files it under, which the page quotes ("" for none). nil records
	// nothing.
	Report func(r *http.Request, err error) (requestID string)
}

// Paths the hub mounts the page at; every other path is the hub's own.
var Paths = []string{"GET /{$}", "/rooms/", "/signin", "/signout", "/static/", "/search", "/connect", "/settings", "/settings/"}

// Handler serves the page.
type Handler struct {
	cfg   Config
	mux   *http.ServeMux
	pages map[string]*template.Template
	frag  *template.Template
	// live shares the watches of live rosters and lists of rooms.
	live feeds
}

// New makes the page's handler.
func New(cfg Config) (*Handler, error) {
	if cfg.ServiceFor == nil {
		return nil, errors.New("web: Config.ServiceFor is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 25 * time.Second
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), pages: map[string]*template.Template{}, live: feeds{done: cfg.Done}}
	base, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/event.html",
		"templates/qa.html", "templates/roster.html", "templates/roomstable.html", "templates/takepart.html", "templates/diff.html")
	if err != nil {
		return nil, err
	}
	h.frag = base.Lookup("event")
	for _, name := range []string{"rooms", "room", "signin", "error", "search", "connect", "settings", "token", "doc", "docdiff", "docedit"} {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, err
		}
		h.pages[name] = t
	}
	static, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	h.mux.Handle("GET /static/", http.StripPrefix("/static/", h.files(static)))
	h.mux.HandleFunc("GET /{$}", h.serveRooms)
	h.mux.HandleFunc("GET /rooms/{room_id}", h.serveRoom)
	h.mux.HandleFunc("GET /rooms/{room_id}/live", h.serveLive)
	h.mux.HandleFunc("GET /rooms/live", h.serveRoomsLive)
	h.mux.HandleFunc("POST /rooms/{room_id}/join", h.postJoin)
	h.mux.HandleFunc("POST /rooms/{room_id}/leave", h.postLeave)
	h.mux.HandleFunc("POST /rooms/{room_id}/notes", h.postNote)
	h.mux.HandleFunc("POST /rooms/{room_id}/handon", h.postHandOn)
	h.mux.HandleFunc("POST /rooms/{room_id}/takeover", h.postTakeover)
	h.mux.HandleFunc("GET /rooms/{room_id}/doc", h.serveDoc)
	h.mux.HandleFunc("GET /rooms/{room_id}/doc/diff", h.serveDocDiff)
	h.mux.HandleFunc("GET /rooms/{room_id}/doc/edit", h.serveDocEdit)
	h.mux.HandleFunc(editPattern, h.editDoc)
	h.mux.HandleFunc("GET /signin", h.serveSignin)
	h.mux.HandleFunc("POST /signin", h.signin)
	h.mux.HandleFunc("POST /signout", h.signout)
	h.mux.HandleFunc("GET /search", h.serveSearch)
	h.mux.HandleFunc("GET /rooms/{room_id}/export", h.serveExport)
	h.mux.HandleFunc("GET /connect", h.serveConnect)
	h.mux.HandleFunc("GET /settings", h.serveSettings)
	h.mux.HandleFunc("POST /settings/tokens", h.createToken)
	h.mux.HandleFunc("POST /settings/tokens/revoke", h.revokeToken)
	h.mux.HandleFunc("POST /settings/public-url", h.setPublicURL)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusNotFound, "There is no page at this address.", "")
	})
	return h, nil
}

// ServeHTTP serves one request of the page, with headers that keep any
// script but the page's own from running and the page out of frames; a
// POST's form is read first, bounded (readForm).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	if !h.readForm(w, r) {
		return
	}
	h.mux.ServeHTTP(w, r)
}

// files serves the page's assets, cached; a folder of them (the assets'
// root too) is no page, and gets the 404 of a path that is none, not a
// listing.
func (h *Handler) files(static fs.FS) http.Handler {
	serve := cached(http.FileServerFS(static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(r.URL.Path, "/")
		if name == "" {
			name = "."
		}
		if fi, err := fs.Stat(static, name); err == nil && fi.IsDir() || strings.HasSuffix(r.URL.Path, "/") {
			h.fail(w, r, http.StatusNotFound, "There is no page at this address.", "")
			return
		}
		serve.ServeHTTP(w, r)
	})
}

// cached lets browsers keep the assets for an hour.
func cached(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// The cookies of the page.
const (
	// sessionCookie holds the token signed in with.
	sessionCookie = "stick_session"
	// csrfCookie holds the random value every form sends back.
	csrfCookie = "stick_csrf"
	// csrfField is the form field that carries it.
	csrfField = "csrf"
)

// cookie makes a cookie of the page: HttpOnly, so no script reads it;
// SameSite=Strict, so no request another site's page starts carries it;
// Secure over TLS. The CSRF cookie is one.
func (h *Handler) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil || h.cfg.Secure != nil && h.cfg.Secure()}
}

// sessionCookieOf makes the session cookie, which holds the token signed
// in with: HttpOnly and Secure over TLS as every cookie of the page, but
// SameSite=Lax, so that a reader who follows a link to the page from
// another site (a chat, a mail, an issue) arrives signed in. Lax is safe
// here: a browser sends a Lax cookie from another site only on a
// top-level GET navigation, and no GET of the page writes anything;
// every form that writes is a POST, which from another site carries no
// session cookie, and needs the CSRF pair besides, whose cookie stays
// Strict.
func (h *Handler) sessionCookieOf(r *http.Request, value string, maxAge int) *http.Cookie {
	c := h.cookie(r, sessionCookie, value, maxAge)
	c.SameSite = http.SameSiteLaxMode
	return c
}

// csrf returns the request's CSRF value, setting a new cookie when it has
// none: forms send it back in csrfField (a double-submit check that
// another site's page cannot pass, as it can neither read nor set the
// cookie).
func (h *Handler) csrf(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 64 {
		return c.Value
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	v := hex.EncodeToString(b[:])
	http.SetCookie(w, h.cookie(r, csrfCookie, v, 0))
	return v
}

// checkCSRF reports whether a form's CSRF value is the cookie's.
func checkCSRF(r *http.Request) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil || len(c.Value) != 64 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue(csrfField))) == 1
}

// viewer is who reads a page: the principal, and whether it signed in.
type viewer struct {
	principal stick.Principal
	signedIn  bool
}

// errSignIn says the request must sign in first.
var errSignIn = errors.New("sign in first")

// who finds the request's principal: the token of its Authorization
// header (see bearer), else of its session cookie, else on an open hub
// the local principal. A cookie whose token is no
// longer valid is cleared. It fails with errSignIn when the request must
// sign in, and with the hub's errors (rate_limited, db_busy, ...).
func (h *Handler) who(w http.ResponseWriter, r *http.Request) (viewer, error) {
	if v, ok, err := h.bearer(w, r); ok {
		return v, err
	}
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" && h.cfg.Authenticate != nil {
		p, err := h.cfg.Authenticate(r, c.Value)
		if stick.ErrorCode(err) == stick.CodeUnauthenticated {
			http.SetCookie(w, h.sessionCookieOf(r, "", -1))
			return viewer{}, errSignIn
		}
		return viewer{principal: p, signedIn: true}, err
	}
	open, err := h.open(r.Context())
	if err != nil {
		return viewer{}, err
	}
	if open {
		return viewer{principal: h.cfg.Local}, nil
	}
	return viewer{}, errSignIn
}

func (h *Handler) open(ctx context.Context) (bool, error) {
	if h.cfg.Open == nil {
		return false, nil
	}
	return h.cfg.Open(ctx)
}
