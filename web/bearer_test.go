package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// bearerGet reads path with an Authorization header and no cookie.
func (e *env) bearerGet(path, auth string) (*http.Response, string) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, http.MethodGet, e.srv.URL+path, nil)
	req.Header.Set("Authorization", auth)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestBearerReadsThePage(t *testing.T) {
	e := newEnv(t, false)
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "script", Role: stick.AccessViewer})
	if err != nil {
		t.Fatal(err)
	}
	room := e.join("codex:a1", "scripted")
	e.note("codex:a1", room, "read by curl", "")
	resp, body := e.bearerGet("/", "Bearer "+secret)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, ">scripted<") {
		t.Fatalf("the list with a bearer token: %d\n%s", resp.StatusCode, body)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "stick_session" {
			t.Fatal("a bearer read signed the script in")
		}
	}
	if strings.Contains(body, "Sign out") {
		t.Error("a bearer read shows a sign-out button")
	}
	if resp, body := e.bearerGet("/rooms/"+room, "bearer "+secret); resp.StatusCode != http.StatusOK || !strings.Contains(body, "read by curl") {
		t.Fatalf("a room with a bearer token: %d", resp.StatusCode)
	}
	// The live streams read with it too.
	hdr := http.Header{"Authorization": {"Bearer " + secret}}
	e.stream(&http.Client{}, "/rooms/live", hdr).next("rooms", ">scripted<")

	for _, bad := range []string{"Bearer stk_not_a_token", "Bearer "} {
		resp, body := e.bearerGet("/", bad)
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%q: %d %q", bad, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		if strings.Contains(body, ">scripted<") {
			t.Errorf("%q read the rooms", bad)
		}
	}
	// Another scheme is not a token of the hub's, whatever it carries (a
	// reverse proxy's Basic authentication): the page reads by its
	// cookie, and with none asks to sign in.
	for _, other := range []string{"Basic " + secret, secret} {
		resp, body := e.bearerGet("/", other)
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/signin") || strings.Contains(body, ">scripted<") {
			t.Errorf("%q: %d %s, want a redirect to sign in and no rooms", other, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// A bad bearer token on an open hub is refused too, not read as the
	// local principal.
	open := newEnv(t, true)
	if resp, _ := open.bearerGet("/", "Bearer stk_not_a_token"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a bad bearer token on an open hub: %d", resp.StatusCode)
	}
}

// A form needs the CSRF pair whatever the credential: a bearer-only POST
// is refused; with the pair, the bearer's principal acts.
func TestBearerFormsNeedCSRF(t *testing.T) {
	e := newEnv(t, false)
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "ops", Role: stick.AccessOperator})
	if err != nil {
		t.Fatal(err)
	}
	room := e.join("codex:a1", "forms")
	before := e.frozen(room)
	form := url.Values{"type": {"note"}, "text": {"by script"}}
	req, _ := http.NewRequestWithContext(e.ctx, http.MethodPost, e.srv.URL+"/rooms/"+room+"/join", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || e.frozen(room) != before {
		t.Fatalf("a bearer-only form: %d", resp.StatusCode)
	}
	csrf := strings.Repeat("ab", 32)
	form.Set("csrf", csrf)
	req, _ = http.NewRequestWithContext(e.ctx, http.MethodPost, e.srv.URL+"/rooms/"+room+"/join", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+secret)
	req.AddCookie(&http.Cookie{Name: "stick_csrf", Value: csrf})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	st, err := e.svc.RoomState(e.ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSeeOther || len(st.Members) != 2 || st.Members[1].AgentID != "human:ops@ops" {
		t.Fatalf("a bearer form with its CSRF pair: %d, members %+v", resp.StatusCode, st.Members)
	}
}
