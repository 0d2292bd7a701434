package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
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
