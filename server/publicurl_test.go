package server_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
)

// page is a browser on a hub's page: its cookies and the CSRF value the
// page gave it.
type page struct {
	t    *testing.T
	h    *hub
	c    *http.Client
	csrf string
}

func (h *hub) browser() *page {
	h.t.Helper()
	jar, _ := cookiejar.New(nil)
	p := &page{t: h.t, h: h, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	p.send(http.MethodGet, "/signin", nil, nil)
	u, _ := url.Parse(h.url)
	for _, ck := range jar.Cookies(u) {
		if ck.Name == "stick_csrf" {
			p.csrf = ck.Value
		}
	}
	if p.csrf == "" {
		h.t.Fatal("the page set no CSRF cookie")
	}
	return p
}

// send sends a request with the headers hdr (name, value, ...) and, for a
// form, the page's CSRF value; it returns the status and the body.
func (p *page) send(method, path string, form url.Values, hdr []string) (int, string) {
	p.t.Helper()
	var body io.Reader
	if form != nil {
		form.Set("csrf", p.csrf)
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, p.h.url+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// agentsMD is the hub's /agents.md.
func (h *hub) agentsMD() string {
	h.t.Helper()
	resp, err := http.Get(h.url + "/agents.md")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// A public URL an operator sets on the page is the hub's at once, without
// a restart: /agents.md, the connect page and the resource metadata name
// it, browsers may use the hub from its origin and by its host, and the
// page stays usable from the listening address it was read at. The hub
// keeps it across a restart; forgotten, the listening address is the
// public URL again.
func TestPublicURLSetOnThePage(t *testing.T) {
	data := t.TempDir()
	h := startHub(t, data, nil)
	if !strings.Contains(h.agentsMD(), "export STICK_HUB='"+h.url+"'") {
		t.Fatalf("/agents.md before: %s", h.agentsMD())
	}
	p := h.browser()
	fromPage := []string{"Origin", h.url, "Sec-Fetch-Site", "same-origin"}
	if st, _ := p.send(http.MethodGet, "/", nil, []string{"Host", "stick.example.com"}); st != http.StatusForbidden {
		t.Fatalf("a foreign Host before the change: %d", st)
	}
	if st, body := p.send(http.MethodPost, "/settings/public-url", url.Values{"public_url": {"https://stick.example.com/teams/"}}, fromPage); st != http.StatusSeeOther {
		t.Fatalf("set the public URL: %d\n%s", st, body)
	}
	md := h.agentsMD()
	if !strings.Contains(md, "export STICK_HUB='https://stick.example.com/teams'\n") || !strings.Contains(md, "`https://stick.example.com/teams/api/v1`") || strings.Contains(md, h.url) {
		t.Fatalf("/agents.md does not follow the page:\n%s", md)
	}
	if st, body := p.send(http.MethodGet, "/connect", nil, fromPage); st != http.StatusOK || !strings.Contains(body, "--server &#39;https://stick.example.com/teams&#39;") ||
		!strings.Contains(body, "export STICK_HUB=&#39;https://stick.example.com/teams&#39;") {
		t.Fatalf("the connect page: %d\n%s", st, body)
	}
	if _, body := p.send(http.MethodGet, "/.well-known/oauth-protected-resource", nil, nil); !strings.Contains(body, `"resource":"https://stick.example.com/teams"`) {
		t.Errorf("the resource metadata: %s", body)
	}
	for _, hdr := range [][]string{fromPage, {"Origin", "https://stick.example.com"}, {"Host", "stick.example.com"}} {
		if st, body := p.send(http.MethodGet, "/settings", nil, hdr); st != http.StatusOK || !strings.Contains(body, "https://stick.example.com/teams") {
			t.Errorf("the settings with %v: %d", hdr, st)
		}
	}
	if st, _ := p.send(http.MethodPost, "/settings/public-url", url.Values{"public_url": {"https://x.example"}}, []string{"Origin", "http://evil.example"}); st != http.StatusForbidden {
		t.Errorf("a form from another origin: %d", st)
	}
	if h.stop() != 0 {
		t.Fatalf("the hub did not stop cleanly:\n%s", h.proc.Stderr())
	}

	h = startHub(t, data, nil)
	if h.public != "https://stick.example.com/teams" || !strings.Contains(h.agentsMD(), "export STICK_HUB='https://stick.example.com/teams'") {
		t.Fatalf("after a restart the public URL is %s", h.public)
	}
	p = h.browser()
	if st, _ := p.send(http.MethodPost, "/settings/public-url", url.Values{"public_url": {""}}, []string{"Origin", h.url}); st != http.StatusSeeOther {
		t.Fatalf("forget the public URL: %d", st)
	}
	if !strings.Contains(h.agentsMD(), "export STICK_HUB='"+h.url+"'") {
		t.Fatalf("/agents.md after forgetting: %s", h.agentsMD())
	}
	h.stop()
}

// --public-url wins over the URL set on the page: the page says so, and
// /agents.md keeps the flag's.
func TestPublicURLFlagWins(t *testing.T) {
	h := startHub(t, "", nil, "--public-url", "https://flag.example.com")
	defer h.stop()
	p := h.browser()
	if st, body := p.send(http.MethodGet, "/settings", nil, nil); st != http.StatusOK || !strings.Contains(body, "wins over this setting") || !strings.Contains(body, " disabled>") {
		t.Fatalf("the settings of a hub started with --public-url: %d\n%s", st, body)
	}
	if st, _ := p.send(http.MethodPost, "/settings/public-url", url.Values{"public_url": {"https://page.example.com"}}, []string{"Origin", h.url}); st != http.StatusSeeOther {
		t.Fatalf("set: %d", st)
	}
	if md := h.agentsMD(); !strings.Contains(md, "export STICK_HUB='https://flag.example.com'") || strings.Contains(md, "page.example.com") {
		t.Fatalf("/agents.md of a hub started with --public-url:\n%s", md)
	}
}

// A token made on the page of a hub that had none is the hub's first:
// from then on the page and the API want a token, the new one signs in
// and calls the API, and its secret is in no line of the hub's log.
func TestTokenMadeOnThePage(t *testing.T) {
	h := startHub(t, "", nil)
	p := h.browser()
	st, body := p.send(http.MethodPost, "/settings/tokens", url.Values{"name": {"ops"}, "role": {"operator"}}, []string{"Origin", h.url})
	i := strings.Index(body, "stk_")
	if st != http.StatusOK || i < 0 || len(body) < i+68 {
		t.Fatalf("make a token: %d\n%s", st, body)
	}
	secret := body[i : i+68]
	if st, _ := p.send(http.MethodGet, "/", nil, nil); st != http.StatusSeeOther {
		t.Fatalf("the page of a hub with a token, signed out: %d", st)
	}
	h.client("", "").fails(http.StatusUnauthorized, "unauthenticated", http.MethodGet, "/api/v1/rooms", nil)
	h.client(secret, "").ok(http.MethodGet, "/api/v1/rooms", nil)
	if st, _ := p.send(http.MethodPost, "/signin", url.Values{"token": {secret}}, nil); st != http.StatusSeeOther {
		t.Fatalf("sign in with the new token: %d", st)
	}
	if st, body := p.send(http.MethodGet, "/settings", nil, nil); st != http.StatusOK || !strings.Contains(body, ">ops<") || strings.Contains(body, secret) {
		t.Fatalf("the settings, signed in: %d", st)
	}
	if h.stop() != 0 {
		t.Fatalf("the hub did not stop cleanly:\n%s", h.proc.Stderr())
	}
	if strings.Contains(h.proc.Stderr(), secret) {
		t.Fatal("the hub's log has the secret made on the page")
	}
}
