package web_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/web"
)

// skewed gives the page a clock that runs skew ahead of the real one, and
// keep-alives every 20 ms, so a test moves a stream past its next check
// of the credential without waiting for it.
func skewed(skew *atomic.Int64) func(*web.Config) {
	return func(c *web.Config) {
		c.KeepAlive = 20 * time.Millisecond
		c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	}
}

// rest reads the stream to its end and returns the events it sent, each
// as "name: data"; it fails the test when the stream does not end.
func (s *sse) rest() []string {
	s.t.Helper()
	var out []string
	var ev, data string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ") + "\n"
		case line == "":
			if ev != "" {
				out = append(out, ev+": "+data)
			}
			ev, data = "", ""
		}
	}
	if err := s.sc.Err(); err != nil {
		s.t.Fatalf("the stream did not end: %v; it sent %q", err, out)
	}
	return out
}

// signedOut fails unless events end with the signedout event, and none
// holds any of never.
func signedOut(t *testing.T, what string, events []string, never ...string) {
	t.Helper()
	if len(events) == 0 || !strings.HasPrefix(events[len(events)-1], "signedout: ") || !strings.Contains(events[len(events)-1], "Sign in again") {
		t.Fatalf("%s did not end with signedout: %q", what, events)
	}
	for _, ev := range events {
		for _, n := range never {
			if strings.Contains(ev, n) {
				t.Errorf("%s sent %q after its token was revoked: %s", what, n, ev)
			}
		}
	}
}

// refused fails unless a reconnecting EventSource gets a 401 that is no
// event stream and no redirect, which ends its reconnecting.
func (e *env) refused(c *http.Client, path string, hdr http.Header) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Content-Type") == "text/event-stream" {
		e.t.Fatalf("%s after the credential failed: %d %s %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Location"))
	}
}

func TestLiveStreamsEndWhenTheirTokenIsRevoked(t *testing.T) {
	var skew atomic.Int64
	e := newEnv(t, false, skewed(&skew))
	room := e.join("codex:a1", "revoked")
	tok, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "ana", Role: stick.AccessViewer})
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	e.signInWith(c, secret)
	liveURL := e.liveURL(c, room)
	live := e.stream(c, liveURL, nil)
	bearer := http.Header{"Authorization": {"Bearer " + secret}}
	rooms := e.stream(e.client(), "/rooms/live", bearer)
	rooms.next("rooms", ">revoked<")
	e.note("codex:a1", room, "before", "")
	live.next("stick", "before")

	if _, err := e.svc.RevokeToken(e.ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	// A stream checks its credential at most once every 5 s.
	e.note("codex:a1", room, "within the gap", "")
	live.next("stick", "within the gap")

	skew.Add(int64(6 * time.Second))
	e.note("codex:a1", room, "after the check", "")
	e.join("claude:b2", "another")
	signedOut(t, "the room's stream", live.rest(), "after the check")
	signedOut(t, "the list's stream", rooms.rest(), ">another<")
	e.refused(c, liveURL, nil)
	e.refused(e.client(), "/rooms/live", bearer)
}

func TestOpenHubStreamsEndOnceTheHubNeedsAToken(t *testing.T) {
	var skew atomic.Int64
	var open atomic.Bool
	open.Store(true)
	e := newEnv(t, true, skewed(&skew), func(c *web.Config) {
		c.Open = func(context.Context) (bool, error) { return open.Load(), nil }
	})
	room := e.join("codex:a1", "opened")
	c := e.client()
	liveURL := e.liveURL(c, room)
	live := e.stream(c, liveURL, nil)
	rooms := e.stream(c, "/rooms/live", nil)
	rooms.next("rooms", ">opened<")

	e.token("ana", stick.AccessViewer, stick.Scope{})
	open.Store(false)
	skew.Add(int64(6 * time.Second))
	// No event at all: the keep-alive finds it out.
	signedOut(t, "the room's stream", live.rest())
	signedOut(t, "the list's stream", rooms.rest())
	e.refused(c, liveURL, nil)
	e.refused(c, "/rooms/live", nil)
}

// The roster and the list are swapped whole at every change: they are no
// live regions, which a screen reader would read again whole; a short
// status says what changed. The feed stays one: its new events are the
// news.
func TestLiveRegionsAreQuiet(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "quiet")
	c := e.client()
	page := e.page(c, "/rooms/"+room)
	for _, want := range []string{`<div id="roster">`, `<p class="sr-only" id="roster-news" role="status"></p>`, `id="feed" aria-live="polite"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the room's page has no %s", want)
		}
	}
	list := e.page(c, "/")
	for _, want := range []string{`<div id="rooms-live" data-live=`, `<p class="sr-only" id="rooms-news" role="status"></p>`} {
		if !strings.Contains(list, want) {
			t.Errorf("the list has no %s", want)
		}
	}
	if strings.Count(page, "aria-live") != 1 || strings.Contains(list, "aria-live") {
		t.Errorf("a region that is swapped whole is live:\n%s\n%s", page, list)
	}
}
