package server_test

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/stick"
)

// tokenHub is a hub with three tokens: an agent's, a second agent's and a
// viewer's.
func tokenHub(t *testing.T) (*hub, map[string]string) {
	t.Helper()
	data := t.TempDir()
	secrets, env := makeTokens(t, data,
		tokenSpec{"Alex's Team", stick.AccessAgent}, tokenSpec{"ops", stick.AccessAgent}, tokenSpec{"dashboard", stick.AccessViewer})
	return startHub(t, data, env), secrets
}

// roomCount is how many rooms the hub lists to c.
func roomCount(t *testing.T, c *client) int {
	t.Helper()
	return len(list(c.ok(get, "/api/v1/rooms", nil), "rooms"))
}

// With tokens, every request but /healthz and the resource metadata needs
// one: none, a wrong one or one of another scheme is 401 with
// WWW-Authenticate naming the metadata, which answers JSON; a viewer may
// read but not write; a body naming an agent_id is refused; and every
// refusal changes nothing.
func TestAuth(t *testing.T) {
	t.Parallel()
	h, secrets := tokenHub(t)
	alex := h.client(secrets["Alex's Team"], "claude-code")
	if h.check == nil {
		t.Fatal("the OpenAPI document was not read with a token")
	}
	j := alex.ok(post, "/api/v1/rooms", map[string]any{"name": "release-1-4"})
	if str(j, "agent_id") != "claude-code@alex-s-team" {
		t.Fatalf("an agent's id comes from its token and client: %v", j)
	}
	room := "/api/v1/rooms/" + str(j, "room_id")

	wantChallenge := `Bearer resource_metadata="` + h.url + `/.well-known/oauth-protected-resource"`
	for name, c := range map[string]*client{
		"no token":    h.client("", "claude-code"),
		"wrong token": h.client("stk_0000", "claude-code"),
	} {
		for _, path := range []string{"/api/v1/rooms", room, "/metrics", "/api/v1/openapi.json"} {
			a := c.do(get, path, nil)
			if a.status != http.StatusUnauthorized || a.code(t) != "unauthenticated" || a.header.Get("WWW-Authenticate") != wantChallenge {
				t.Errorf("%s, GET %s: %d %q %s", name, path, a.status, a.header.Get("WWW-Authenticate"), a.body)
			}
		}
		c.fails(http.StatusUnauthorized, "unauthenticated", post, "/api/v1/rooms", map[string]any{"name": "intruders"})
	}
	basic := h.client("", "")
	basic.header.Set("Authorization", "Basic YWxleDpzZWNyZXQ=")
	basic.fails(http.StatusUnauthorized, "unauthenticated", get, "/api/v1/rooms", nil)

	anyone := h.client("", "")
	if hz := anyone.ok(get, "/healthz", nil); str(hz, "status") != "ok" || str(hz, "version") != "test" {
		t.Fatalf("healthz: %v", hz)
	}
	md := anyone.ok(get, "/.well-known/oauth-protected-resource", nil)
	if str(md, "resource") != h.url || list(md, "bearer_methods_supported")[0] != "header" {
		t.Fatalf("resource metadata: %v", md)
	}

	viewer := h.client(secrets["dashboard"], "grafana")
	if roomCount(t, viewer) != 1 || str(viewer.ok(get, room, nil), "room_name") != "release-1-4" {
		t.Fatal("a viewer reads the rooms")
	}
	viewer.fails(http.StatusForbidden, "forbidden", post, "/api/v1/rooms", map[string]any{"name": "viewers-room"})
	viewer.fails(http.StatusForbidden, "forbidden", post, room+"/notes", map[string]any{"text": "a viewer's note"})
	if roomCount(t, alex) != 1 || len(list(alex.ok(get, room+"/events", nil), "events")) != 1 {
		t.Fatal("a viewer's refused writes changed something")
	}

	for _, field := range []string{"agent_id", "agent_id_override", "display_name"} {
		e := alex.fails(http.StatusBadRequest, "invalid_argument", post, "/api/v1/rooms", map[string]any{"name": "forged", field: "human:root"})
		if str(obj(e, "details"), "field") != field || !strings.Contains(str(e, "hint"), "token") {
			t.Errorf("a forged %s: %v", field, e)
		}
	}
	alex.fails(http.StatusBadRequest, "invalid_argument", post, room+"/notes", map[string]any{"text": "as someone else", "agent_id": "human:root"})
	if roomCount(t, alex) != 1 || len(list(alex.ok(get, room+"/events", nil), "events")) != 1 {
		t.Fatal("a forged agent_id changed something")
	}

	ops := h.client(secrets["ops"], "claude-code")
	if j := ops.ok(post, "/api/v1/rooms", map[string]any{"name": "release-1-4"}); str(j, "agent_id") != "claude-code@ops" {
		t.Fatalf("a second token with the same client is another member: %v", j)
	}
}

// Failed authentications from one address are limited: after a burst,
// 429 with Retry-After, even for a valid token, until the bucket refills.
func TestAuthRateLimit(t *testing.T) {
	t.Parallel()
	h, secrets := tokenHub(t)
	wrong := h.client("stk_wrong", "")
	var limited answer
	for i := 0; i < 50; i++ {
		a := wrong.do(get, "/api/v1/rooms", nil)
		if a.status == http.StatusTooManyRequests {
			limited = a
			break
		}
		if a.status != http.StatusUnauthorized {
			t.Fatalf("try %d: %d %s", i, a.status, a.body)
		}
	}
	if limited.status != http.StatusTooManyRequests || limited.code(t) != "rate_limited" {
		t.Fatal("50 wrong tokens in a row were never limited")
	}
	if s, err := strconv.Atoi(limited.header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q", limited.header.Get("Retry-After"))
	}
	h.client(secrets["ops"], "").fails(http.StatusTooManyRequests, "rate_limited", get, "/api/v1/rooms", nil)
	// /healthz is not behind a token, so not limited.
	h.client("", "").ok(get, "/healthz", nil)
}

// A page of another site cannot use the hub: an Origin other than the
// hub's own, or a cross-site fetch, is refused (403) on every method, and
// a loopback hub refuses a Host that is not a loopback name (DNS
// rebinding). Nothing is changed.
func TestCrossOrigin(t *testing.T) {
	t.Parallel()
	h := startHub(t, "", nil)
	c := h.client("", "")
	for _, hdr := range [][]string{
		{"Origin", "http://evil.example"},
		{"Origin", "null"},
		{"Origin", strings.Replace(h.url, "127.0.0.1", "localhost", 1)},
		{"Sec-Fetch-Site", "cross-site"},
	} {
		c.fails(http.StatusForbidden, "forbidden", post, "/api/v1/rooms", map[string]any{"name": "csrf"}, hdr...)
		c.fails(http.StatusForbidden, "forbidden", get, "/api/v1/rooms", nil, hdr...)
	}
	req, _ := http.NewRequest(http.MethodGet, h.url+"/api/v1/rooms", nil)
	req.Host = "rebound.evil.example:7420"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign Host: %d", resp.StatusCode)
	}
	if roomCount(t, c) != 0 {
		t.Fatal("a refused request made a room")
	}
	// The hub's own origin, and a page of it, are welcome.
	c.ok(post, "/api/v1/rooms", map[string]any{"name": "mine"}, "Origin", h.url, "Sec-Fetch-Site", "same-origin")
	localhost := h.client("", "")
	localhost.h = &hub{t: t, url: strings.Replace(h.url, "127.0.0.1", "localhost", 1), check: h.check, http: h.http}
	if roomCount(t, localhost) != 1 {
		t.Fatal("the hub by the name localhost")
	}
}

// A hub that other hosts can reach refuses to start without a token, and
// says what to do.
func TestNoTokenOffLoopback(t *testing.T) {
	t.Parallel()
	p := testproc.StartEnv(t, []string{"TALKING_STICK_DATA_DIR=" + t.TempDir()}, "stick", "serve", "--addr", "0.0.0.0:0")
	code, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if code != 2 || !strings.Contains(p.Stderr(), "without a token") || !strings.Contains(p.Stderr(), "stick token create NAME") {
		t.Fatalf("exit %d:\n%s", code, p.Stderr())
	}
}

// A hub with tokens listens where other hosts reach it, under its public
// URL; its log has a line per request naming the token, never its secret
// nor any header.
func TestTokensOffLoopback(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	secrets, env := makeTokens(t, data, tokenSpec{"ci", stick.AccessAgent})
	h := startHub(t, data, env, "--addr", "0.0.0.0:0", "--public-url", "https://stick.example.com/")
	if h.public != "https://stick.example.com" {
		t.Fatalf("public url %s", h.public)
	}
	a := h.client("", "").do(get, "/api/v1/rooms", nil)
	if a.status != http.StatusUnauthorized || a.header.Get("WWW-Authenticate") != `Bearer resource_metadata="https://stick.example.com/.well-known/oauth-protected-resource"` {
		t.Fatalf("no token: %d %v", a.status, a.header)
	}
	ci := h.client(secrets["ci"], "nightly")
	j := ci.ok(post, "/api/v1/rooms", map[string]any{"name": "nightly"})
	if str(j, "agent_id") != "nightly@ci" {
		t.Fatalf("join: %v", j)
	}
	if h.stop() != 0 {
		t.Fatalf("stick serve did not stop cleanly:\n%s", h.proc.Stderr())
	}
	logs := h.proc.Stderr()
	if strings.Contains(logs, secrets["ci"]) || strings.Contains(strings.ToLower(logs), "bearer ") || strings.Contains(logs, "Go-http-client") {
		t.Fatalf("the log has a secret or a header:\n%s", logs)
	}
	var joined map[string]any
	for _, l := range logLines(t, h) {
		if l["route"] == "POST /api/v1/rooms" {
			joined = l
		}
	}
	if joined["token"] != "ci" || joined["client"] != "nightly" || joined["status"] != float64(200) || joined["method"] != "POST" ||
		joined["path"] != "/api/v1/rooms" || joined["duration_ms"] == nil {
		t.Fatalf("the join's log line: %v", joined)
	}
}

// logLines are the hub's request log lines so far.
func logLines(t *testing.T, h *hub) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(h.proc.Stderr(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

// A hub on every address, with no public URL given, names itself by the
// host's name.
func TestPublicURLOfEveryAddress(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	_, env := makeTokens(t, data, tokenSpec{"ci", stick.AccessAgent})
	h := startHub(t, data, env, "--addr", "0.0.0.0:0")
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(h.url, "http://"), ":")
	if h.public != "http://"+net.JoinHostPort(host, port) {
		t.Fatalf("public URL %s, host %s", h.public, host)
	}
}
