package web_test

import (
	"bufio"
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// sse reads one Server-Sent Events stream.
type sse struct {
	t  *testing.T
	sc *bufio.Scanner
}

// stream opens the event stream at path as the browser c, with the
// request headers hdr; it ends with the test, or after 20 seconds, so a
// missed event fails the test rather than hang it.
func (e *env) stream(c *http.Client, path string, hdr http.Header) *sse {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 20*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+path, nil)
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		e.t.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<24)
	return &sse{t: e.t, sc: sc}
}

// next reads events until one named name whose data holds every one of
// want, and returns its data.
func (s *sse) next(name string, want ...string) string {
	s.t.Helper()
	var ev, data, last string
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ") + "\n"
		case line == "":
			if ev == name {
				last = data
				ok := true
				for _, w := range want {
					ok = ok && strings.Contains(data, w)
				}
				if ok {
					return data
				}
			}
			ev, data = "", ""
		}
	}
	s.t.Fatalf("no %s event with %q came; the last:\n%s", name, want, last)
	return ""
}

// liveURL is the live stream of a room's page.
func (e *env) liveURL(c *http.Client, room string) string {
	e.t.Helper()
	m := regexp.MustCompile(`data-live="([^"]+)"`).FindStringSubmatch(e.page(c, "/rooms/"+room))
	if m == nil {
		e.t.Fatal("no live URL")
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// liveMember joins room as id with the facts of a real process, and
// returns the function that ends the process: its member turns gone with
// no commit at all.
func (e *env) liveMember(id, room string) func() {
	e.t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		e.t.Skipf("no sleep to run: %v", err)
	}
	e.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	ident, err := procid.Of(cmd.Process.Pid)
	if err != nil {
		e.t.Fatal(err)
	}
	c := stick.Caller{AgentID: id, Kind: stick.KindHarness, Process: ident, DisplayName: `<script>alert(1)</script>`}
	if _, err := e.svc.JoinPath(e.ctx, c, stick.JoinRequest{RoomID: room}); err != nil {
		e.t.Fatal(err)
	}
	return func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
}

func TestLiveRoster(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "roster")
	e.join("claude:b2", "roster")
	c := e.client()
	live := e.liveURL(c, room)
	if !regexp.MustCompile(`&roster=[0-9a-f]{16}$`).MatchString(live) {
		t.Fatalf("the live URL %s does not say which roster the page shows", live)
	}
	// A stream that does not say which roster it shows gets one at once.
	s := e.stream(c, regexp.MustCompile(`&roster=[0-9a-f]+`).ReplaceAllString(live, ""), nil)
	first := s.next("roster", "codex:a1", "claude:b2", "<dt>Holder</dt><dd><span class=\"muted\">nobody</span>")
	if !strings.Contains(first, `data-sig="`) {
		t.Fatalf("the roster has no signature:\n%s", first)
	}
	// The page's own stream gets none until the roster changes.
	shown := e.stream(c, live, nil)
	w := e.claimAs("codex:a1", room)
	if got := shown.next("roster"); !strings.Contains(got, `<dt>Holder</dt><dd><strong>codex:a1</strong>`) {
		t.Fatalf("the page's stream sent a roster it shows already:\n%s", got)
	}
	s.next("roster", `<dt>Holder</dt><dd><strong>codex:a1</strong>`, "lease until", `class="countdown"`)
	if _, err := e.svc.Release(e.ctx, agent("codex:a1"), w.Lease(), stick.Handoff{Status: "s", NextAction: "n"}); err != nil {
		t.Fatal(err)
	}
	s.next("roster", `<dt>Next</dt><dd><strong>claude:b2</strong>`, "may claim until")
	// A member that joins shows, its hostile name escaped; its process
	// ending shows it gone, though nothing commits.
	kill := e.liveMember("gemini:c3", room)
	joined := s.next("roster", "gemini:c3", "&lt;script&gt;alert(1)")
	noRawScript(t, "roster", joined)
	if !regexp.MustCompile(`gemini:c3</strong> <span class="muted">[^<]*</span>\s*<span class="badge status-active">`).MatchString(joined) {
		t.Fatalf("the live member is not active:\n%s", joined)
	}
	kill()
	s.next("roster", `<span class="badge status-gone">gone</span>`)
	// And the feed goes on in the same stream.
	e.note("claude:b2", room, "still here", "")
	s.next("stick", "still here")
}

func TestLiveAnswerNamesItsQuestion(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "live-qa")
	c := e.client()
	s := e.stream(c, e.liveURL(c, room), nil)
	q := e.ask("codex:a1", room, stick.Note{Text: "is it " + hostile + "?", Type: stick.NoteQuestion})
	s.next("stick", `class="event event-note question"`, `badge-open`, "Answer #")
	e.ask("codex:a1", room, stick.Note{Text: "it is", Type: stick.NoteAnswer, ReplyTo: q.Seq})
	ans := s.next("stick", `data-answers="`+itoa(q.Seq)+`"`, "Answers", "is it &lt;script&gt;")
	noRawScript(t, "live answer", ans)
}

func TestLiveRoomsList(t *testing.T) {
	e := newEnv(t, true)
	alpha := e.join("codex:a1", "alpha")
	c := e.client()
	body := e.page(c, "/")
	m := regexp.MustCompile(`id="rooms-live" data-live="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the list has no live stream:\n%s", body)
	}
	s := e.stream(c, strings.ReplaceAll(m[1], "&amp;", "&"), nil)
	noRawScript(t, "rooms", s.next("rooms", ">alpha<", "1 of 1 rooms shown"))
	e.join("claude:b2", "beta")
	s.next("rooms", ">alpha<", ">beta<", "2 of 2 rooms shown")
	e.claimAs("codex:a1", alpha)
	s.next("rooms", `state-owned">owned</span>`, "<td>codex:a1</td>")
	// A member's process ending changes the count of members taking
	// turns, with no commit.
	kill := e.liveMember("gemini:c3", alpha)
	s.next("rooms", "<td>2</td>")
	kill()
	s.next("rooms", "(1 taking turns)")

	// The filter of the page filters the stream too.
	f := e.stream(c, "/rooms/live?q=beta", nil)
	beta := f.next("rooms", ">beta<", "1 of 2 rooms shown")
	if strings.Contains(beta, ">alpha<") {
		t.Fatal("the filtered stream lists a room the filter drops")
	}
	if _, err := e.svc.Close(e.ctx, agent("codex:a1"), alpha, "done", ""); err != nil {
		t.Fatal(err)
	}
	s.next("rooms", `state-closed">closed</span>`)
}
