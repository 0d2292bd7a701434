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
