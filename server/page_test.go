package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// The hub serves its page at /, beside the API: open on a loopback hub
// without tokens, as the API is; the API's own answers stay JSON.
func TestHubServesThePage(t *testing.T) {
	h := startHub(t, "", nil)
	defer h.stop()
	resp, err := http.Get(h.url + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), "<h1>Rooms</h1>") {
		t.Fatalf("GET /: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp.Header.Get("Content-Security-Policy") == "" {
		t.Error("the page has no Content-Security-Policy")
	}
	h.client("", "").fails(http.StatusNotFound, "not_found", http.MethodGet, "/api/v1/nothing", nil)
}

// A script reads the hub's page with a bearer token, as it calls the API;
// a bad token is refused, with no page of rooms.
func TestHubPageReadsABearerToken(t *testing.T) {
	data := t.TempDir()
	secrets, env := makeTokens(t, data, tokenSpec{"script", stick.AccessViewer})
	h := startHub(t, data, env)
	defer h.stop()
	for auth, want := range map[string]int{"Bearer " + secrets["script"]: http.StatusOK, "Bearer stk_wrong": http.StatusUnauthorized} {
		req, _ := http.NewRequest(http.MethodGet, h.url+"/", nil)
		req.Header.Set("Authorization", auth)
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (want == http.StatusOK) != strings.Contains(string(body), "<h1>Rooms</h1>") {
			t.Fatalf("GET / with %q: %d\n%s", auth[:12], resp.StatusCode, body)
		}
	}
}

// A link to the page followed from another site opens it: a top-level
// navigation (GET or HEAD of a page's path) passes the cross-site check;
// anything else cross-site stays refused, a navigation too when it posts
// or names the API or /mcp.
func TestHubPageOpensFromALink(t *testing.T) {
	h := startHub(t, "", nil)
	defer h.stop()
	do := func(method, path string, hdr ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, h.url+path, strings.NewReader("csrf=x"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for i := 0; i < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	link := []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}
	for _, path := range []string{"/", "/search?q=x", "/connect", "/rooms/room_0000000000000000", "/signin"} {
		st, body := do(http.MethodGet, path, link...)
		if st == http.StatusForbidden || strings.Contains(body, `"forbidden"`) {
			t.Errorf("a followed link to %s: %d\n%s", path, st, body)
		}
	}
	if st, _ := do(http.MethodHead, "/", link...); st != http.StatusOK {
		t.Errorf("HEAD / from a link: %d", st)
	}
	if st, _ := do(http.MethodGet, "/", "Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"); st != http.StatusOK {
		t.Errorf("a same-site link to /: %d", st)
	}
	for _, tc := range []struct {
		method, path string
		hdr          []string
	}{
		{http.MethodPost, "/signin", link},
		{http.MethodPost, "/rooms/room_0000000000000000/join", link},
		{http.MethodGet, "/api/v1/rooms", link},
		{http.MethodGet, "/mcp", link},
		{http.MethodGet, "/healthz", link},
		{http.MethodGet, "/", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Sec-Fetch-Dest", "empty"}},
		{http.MethodGet, "/", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "iframe"}},
		{http.MethodGet, "/", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "document"}},
		{http.MethodGet, "/", append([]string{"Origin", "http://evil.example"}, link...)},
	} {
		if st, body := do(tc.method, tc.path, tc.hdr...); st != http.StatusForbidden || !strings.Contains(body, `"forbidden"`) {
			t.Errorf("%s %s %v: %d\n%s", tc.method, tc.path, tc.hdr, st, body)
		}
	}
}
