package web

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// tokenRow is one token of the settings page: never its secret, nor a
// hash of one (the Service gives neither).
type tokenRow struct {
	ID, Name, Role, Rooms, State string
	Created, Expires, LastUsed   time.Time
	// Revocable is set until the token is revoked.
	Revocable bool
}

// tokenForm is what the form that makes a token was sent with, to show
// it again beside the Service's refusal.
type tokenForm struct {
	Name, Role, Rooms, KeyPrefixes, Expires string
}

// settingsBody is the body of the settings page.
type settingsBody struct {
	Tokens []tokenRow
	Roles  []string
	Form   tokenForm
	// TokenError is the Service's refusal of the token form.
	TokenError, TokenHint string
	// Hub is what the hub says of its public URL; HubKnown is set when it
	// says anything (Config.Hub).
	Hub      HubInfo
	HubKnown bool
	// URLValue is the public URL field's value; URLError the Service's
	// refusal of it.
	URLValue, URLError, URLHint string
	// Notice says what the last form did.
	Notice string
}

// createdBody is the body of the page that shows a new token's secret,
// this once.
type createdBody struct {
	ID, Name, Role, Rooms, Expires string
	Secret                         string
}

// The roles a token may have, weakest first.
var roles = []string{string(stick.AccessViewer), string(stick.AccessAgent), string(stick.AccessOperator)}

// serveSettings shows the hub's settings to an operator: its tokens and
// its public URL. The Service decides who is one: anyone else is refused
// (forbidden), as listing tokens is.
func (h *Handler) serveSettings(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	body := settingsBody{Form: tokenForm{Role: string(stick.AccessAgent)}}
	q := r.URL.Query()
	switch {
	case q.Get("saved") == "public-url":
		body.Notice = "The public URL was saved; the hub uses it from now on."
	case q.Get("revoked") != "":
		body.Notice = "revoked"
	}
	h.settings(w, r, v, h.cfg.ServiceFor(v.principal), http.StatusOK, body, q.Get("revoked"))
}

// settings writes the settings page with status, filling in the tokens
// and the public URL; revoked names the token a revocation just revoked.
func (h *Handler) settings(w http.ResponseWriter, r *http.Request, v viewer, svc *stick.Service, status int, body settingsBody, revoked string) {
	toks, err := svc.ListTokens(r.Context())
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	body.Roles = roles
	for _, t := range toks {
		row := tokenRow{ID: render.Line(t.ID), Name: render.Line(t.Name), Role: render.Line(string(t.Role)),
			Rooms: render.Line(t.Rooms.String()), State: render.Line(string(t.State)), Created: t.CreatedAt,
			Expires: t.ExpiresAt, LastUsed: t.LastUsedAt, Revocable: t.RevokedAt.IsZero()}
		body.Tokens = append(body.Tokens, row)
		if revoked != "" && t.ID == revoked && body.Notice == "revoked" {
			body.Notice = "The token " + row.Name + " (" + row.ID + ") was revoked: its secret no longer works."
		}
	}
	if body.Notice == "revoked" {
		body.Notice = ""
	}
	if h.cfg.Hub != nil {
		info, err := h.cfg.Hub(r.Context())
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		body.HubKnown = true
		body.Hub = HubInfo{PublicURL: render.Line(info.PublicURL), Fixed: info.Fixed, Stored: render.Line(info.Stored), Listen: render.Line(info.Listen)}
		if body.URLError == "" {
			body.URLValue = body.Hub.Stored
		}
	}
	h.show(w, r, status, "settings", v, "Settings", body)
}

// createToken makes a token (stick.Service.CreateToken, which decides who
// may and what is valid) and shows its secret on the page it answers
// with, this once: the secret is in no URL, cookie or log, and the page
// is not kept by the browser's cache. A refusal shows the settings again,
// with the form as sent and the Service's message.
func (h *Handler) createToken(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	f := tokenForm{Name: r.PostFormValue("name"), Role: r.PostFormValue("role"), Rooms: r.PostFormValue("rooms"),
		KeyPrefixes: r.PostFormValue("key_prefixes"), Expires: strings.TrimSpace(r.PostFormValue("expires"))}
	req := stick.TokenRequest{Name: f.Name, Role: stick.AccessRole(f.Role),
		Rooms: stick.Scope{Names: words(f.Rooms), KeyPrefixes: words(f.KeyPrefixes)}}
	var err error
	if f.Expires != "" {
		req.ExpiresIn, err = stick.ParseExpiry("the expiry", f.Expires)
	}
	var tok stick.Token
	var secret string
	if err == nil {
		tok, secret, err = a.svc.CreateToken(r.Context(), req)
	}
	if err != nil {
		e := stick.AsError(err)
		if e.Code != stick.CodeInvalidArgument {
			h.failErr(w, r, err)
			return
		}
		safe := tokenForm{Name: render.Line(f.Name), Role: render.Line(f.Role), Rooms: render.Line(f.Rooms),
			KeyPrefixes: render.Line(f.KeyPrefixes), Expires: render.Line(f.Expires)}
		body := settingsBody{Form: safe, TokenError: render.Text(e.Message), TokenHint: render.Text(e.Hint)}
		h.settings(w, r, a.viewer, a.svc, statusOf(e.Code), body, "")
		return
	}
	body := createdBody{ID: render.Line(tok.ID), Name: render.Line(tok.Name), Role: render.Line(string(tok.Role)),
		Rooms: render.Line(tok.Rooms.String()), Expires: "never", Secret: secret}
	if !tok.ExpiresAt.IsZero() {
		body.Expires = tok.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")
	}
	h.show(w, r, http.StatusOK, "token", a.viewer, "Token created", body)
}

// revokeToken revokes the token of the form (stick.Service.RevokeToken)
// and goes back to the settings.
func (h *Handler) revokeToken(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	res, err := a.svc.RevokeToken(r.Context(), r.PostFormValue("token"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings?revoked="+url.QueryEscape(res.Token.ID)+"#tokens", http.StatusSeeOther)
}

// setPublicURL stores the hub's public URL (stick.Service.SetPublicURL:
// an operator's whose token reaches every room; "" forgets it) and has
// the hub take it up (Config.Hub). A refusal of the URL shows the
// settings again with the Service's message.
func (h *Handler) setPublicURL(w http.ResponseWriter, r *http.Request) {
	a, ok := h.act(w, r)
	if !ok {
		return
	}
	raw := r.PostFormValue("public_url")
	if _, err := a.svc.SetPublicURL(r.Context(), raw); err != nil {
		e := stick.AsError(err)
		if e.Code != stick.CodeInvalidArgument {
			h.failErr(w, r, err)
			return
		}
		body := settingsBody{Form: tokenForm{Role: string(stick.AccessAgent)}, URLValue: render.Line(raw), URLError: render.Text(e.Message), URLHint: render.Text(e.Hint)}
		h.settings(w, r, a.viewer, a.svc, statusOf(e.Code), body, "")
		return
	}
	if h.cfg.Hub != nil {
		if _, err := h.cfg.Hub(r.Context()); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
	http.Redirect(w, r, "/settings?saved=public-url#public-url", http.StatusSeeOther)
}

// words splits a field of a form into its words: separated by commas or
// spaces.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
}
