package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// A reader sent to sign in comes back to the page it asked for; a next
// that is not a path on this hub lands on "/", never on another site.
func TestSignInReturnsToThePage(t *testing.T) {
	e := newEnv(t, false)
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "ana", Role: stick.AccessViewer})
	if err != nil {
		t.Fatal(err)
	}
	room := e.join("codex:a1", "linked")
	c := e.client()
	asked := "/rooms/" + room + "?before=5"
	resp, err := c.Get(e.srv.URL + asked)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || loc != "/signin?next="+url.QueryEscape(asked) {
		t.Fatalf("unsigned: %d %s", resp.StatusCode, loc)
	}
	form := e.page(c, loc)
	if !strings.Contains(form, `name="next" value="/rooms/`+room+`?before=5"`) {
		t.Fatalf("the sign-in form does not carry next:\n%s", form)
	}
	m := csrfRe.FindStringSubmatch(form)
	if m == nil {
		t.Fatal("no CSRF token")
	}
	csrf := m[1]
	// A wrong token keeps next in the form.
	st, _, again := e.sendForm(c, "/signin", url.Values{"token": {"stk_wrong"}, "csrf": {csrf}, "next": {asked}})
	if st != http.StatusUnauthorized || !strings.Contains(again, `name="next" value="/rooms/`+room+`?before=5"`) {
		t.Fatalf("a wrong token: %d, next lost", st)
	}
	st, loc, _ = e.sendForm(c, "/signin", url.Values{"token": {secret}, "csrf": {csrf}, "next": {asked}})
	if st != http.StatusSeeOther || loc != asked {
		t.Fatalf("signed in: %d %s, want %s", st, loc, asked)
	}
	for _, bad := range []string{"//evil.com", `/\evil.com`, "https://evil.com", "/%2F%2Fevil.com", "///evil.com", "http:/evil.com",
		"evil.com", "javascript:alert(1)", "/\t/evil.com", "/\x00", " /x", "/\\/evil.com", "\\\\evil.com"} {
		st, loc, _ := e.sendForm(c, "/signin", url.Values{"token": {secret}, "csrf": {csrf}, "next": {bad}})
		if st != http.StatusSeeOther || loc != "/" {
			t.Errorf("next %q: %d %q", bad, st, loc)
		}
		// The form asked with it carries none but a local path.
		page := e.page(e.client(), "/signin?next="+url.QueryEscape(bad))
		if strings.Contains(page, `name="next"`) {
			t.Errorf("the form carries next %q:\n%s", bad, page)
		}
	}
	// The raw query /signin?next=/%2F%2Fevil.com reads as ///evil.com:
	// not local.
	if page := e.page(e.client(), "/signin?next=/%2F%2Fevil.com"); strings.Contains(page, `name="next"`) {
		t.Errorf("next=/%%2F%%2Fevil.com is carried:\n%s", page)
	}
}

// The session cookie is Lax, so a link followed from another site
// arrives signed in; the CSRF cookie stays Strict, and a form still needs
// the pair.
func TestCookieSameSite(t *testing.T) {
	e := newEnv(t, false)
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "bo", Role: stick.AccessViewer})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(e.srv.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var csrf *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "stick_csrf" {
			csrf = ck
		}
	}
	if csrf == nil || csrf.SameSite != http.SameSiteStrictMode || !csrf.HttpOnly {
		t.Fatalf("the CSRF cookie: %+v", csrf)
	}
	c := e.client()
	e.signInWith(c, secret)
	u, _ := url.Parse(e.srv.URL)
	if len(c.Jar.Cookies(u)) != 2 {
		t.Fatal("signed in without its cookies")
	}
	// Signed in, a form without the CSRF field is still refused.
	if st, _, _ := e.sendForm(c, "/signout", url.Values{}); st != http.StatusForbidden {
		t.Errorf("sign-out without CSRF: %d", st)
	}
}
