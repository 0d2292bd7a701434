package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"github.com/stickhq/stick/web"
)

// hostile is text a member may write that must never run on the page.
const hostile = `<script>alert(1)</script><a href="javascript:alert(2)">x</a>` + "\x1b[31mred\x1b[0m"

// env is a page over a real SQLite store.
type env struct {
	t    *testing.T
	ctx  context.Context
	svc  *stick.Service
	srv  *httptest.Server
	open bool
}

// newEnv serves the page; open makes it a hub without tokens; opts
// change its Config.
func newEnv(t *testing.T, open bool, opts ...func(*web.Config)) *env {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: context.Background(), svc: svc, open: open}
	cfg := web.Config{
		ServiceFor: svc.As,
		Authenticate: func(r *http.Request, secret string) (stick.Principal, error) {
			return svc.Authenticate(r.Context(), secret)
		},
		Open:  func(context.Context) (bool, error) { return e.open, nil },
		Local: stick.Principal{Name: "local", Role: stick.AccessOperator},
		Done:  make(chan struct{}),
	}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(func() { svc.Shutdown(); e.srv.Close() })
	return e
}

// client is a browser: it keeps cookies and does not follow redirects.
func (e *env) client() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get fetches a page and returns its status and body.
func (e *env) get(c *http.Client, path string) (int, string) {
	e.t.Helper()
	resp, err := c.Get(e.srv.URL + path)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// page fetches a page that must answer 200.
func (e *env) page(c *http.Client, path string) string {
	e.t.Helper()
	st, body := e.get(c, path)
	if st != http.StatusOK {
		e.t.Fatalf("GET %s: %d\n%s", path, st, body)
	}
	return body
}

func agent(id string) stick.Caller { return stick.Caller{AgentID: id, Kind: stick.KindProcess} }

// join joins the room named name as id.
func (e *env) join(id, name string) string {
	e.t.Helper()
	res, err := e.svc.JoinPath(e.ctx, agent(id), stick.JoinRequest{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	return res.RoomID
}

// turn takes the stick as id and releases it with h.
func (e *env) turn(id, room string, h stick.Handoff) {
	e.t.Helper()
	zero := time.Duration(0)
	w, err := e.svc.WaitForTurn(e.ctx, agent(id), stick.WaitRequest{RoomID: room, MaxWait: &zero})
	if err != nil || w.Status != stick.YourTurn {
		e.t.Fatalf("wait: %+v %v", w, err)
	}
	if _, err := e.svc.Release(e.ctx, agent(id), w.Lease(), h); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) note(id, room, text string, typ stick.NoteType) {
	e.t.Helper()
	if _, err := e.svc.Post(e.ctx, agent(id), room, stick.Note{Text: text, Type: typ}); err != nil {
		e.t.Fatal(err)
	}
}

// firstEvent reads a live stream up to its first event named name and
// returns that event's data.
func (e *env) firstEvent(path, name string) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<22)
	event, data := "", ""
	for lines.Scan() {
		switch line := lines.Text(); {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ") + "\n"
		case line == "" && event == name:
			return data
		case line == "":
			event, data = "", ""
		}
	}
	e.t.Fatalf("%s: no %q event", path, name)
	return ""
}

// noRawScript fails when hostile markup reached the page as markup: a
// script, a javascript: link, an event handler attribute (on...=) or
// any tag or attribute the page's own markup has not (inspectHTML), or
// a raw ESC or bidi control, which a terminal or a browser would obey.
func noRawScript(t *testing.T, where, body string) {
	t.Helper()
	for _, bad := range []string{"<script>alert", `href="javascript:`, "\x1b"} {
		if strings.Contains(body, bad) {
			t.Errorf("%s: the page holds %q unescaped", where, bad)
		}
	}
	if i := strings.IndexFunc(body, func(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }); i >= 0 {
		t.Errorf("%s: the page holds a raw bidi control %q", where, body[i:i+3])
	}
	inspectHTML(t, where, body, false)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([0-9a-f]{64})"`)

func TestRoomsList(t *testing.T) {
	e := newEnv(t, true)
	c := e.client()
	if body := e.page(c, "/"); !strings.Contains(body, "No room yet") {
		t.Fatalf("an empty hub: %s", body)
	}
	alpha := e.join("codex:a1", "alpha")
	e.join("claude:b2", "alpha")
	e.join("codex:a1", "beta")
	bravo := e.join("codex:a1", "bravo")
	if _, err := e.svc.Close(e.ctx, agent("codex:a1"), bravo, "done", "shipped"); err != nil {
		t.Fatal(err)
	}
	body := e.page(c, "/")
	for _, want := range []string{`href="/rooms/` + alpha + `"`, ">alpha<", ">beta<", ">bravo<", "closed", "3 of 3 rooms shown", `type="search"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	if strings.Index(body, ">bravo<") < strings.Index(body, ">beta<") {
		t.Error("a closed room is listed before an open one")
	}
	filtered := e.page(c, "/?q=CLAUDE")
	if !strings.Contains(filtered, ">alpha<") || strings.Contains(filtered, ">beta<") || !strings.Contains(filtered, "1 of 3 rooms shown") {
		t.Errorf("q=claude keeps the rooms of another member:\n%s", filtered)
	}
	if none := e.page(c, "/?q=nothing-like-it"); !strings.Contains(none, "No room matches") {
		t.Error("a filter matching nothing says nothing")
	}
	resp, err := c.Get(e.srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data:;") {
		t.Errorf("the CSP loads no inline picture: %s", csp)
	}
	if st, _ := e.get(c, "/static/style.css"); st != http.StatusOK {
		t.Errorf("style.css: %d", st)
	}
	if st, _ := e.get(c, "/static/app.js"); st != http.StatusOK {
		t.Errorf("app.js: %d", st)
	}
	// The assets' folder is no page: no listing of it, however asked.
	for _, dir := range []string{"/static/", "/static/app.js/"} {
		if st, body := e.get(c, dir); st != http.StatusNotFound || strings.Contains(body, `href="app.js"`) {
			t.Errorf("%s: %d, lists the assets:\n%s", dir, st, body)
		}
	}
}

func TestRoomPageHandoffInFull(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "work")
	e.join("claude:b2", "work")
	e.turn("codex:a1", room, stick.Handoff{
		Status: "parser done", NextAction: "wire the lexer",
		Artifacts:     []stick.Artifact{{Path: "lex/lex.go", Lines: []int{10, 42}, Role: stick.RoleEdit, Note: "the loop"}},
		OpenQuestions: []string{"keep tabs?"}, DoNot: []string{"touch go.mod"},
	})
	e.note("claude:b2", room, "is the API frozen?", stick.NoteType("question"))
	if _, err := e.svc.UpdateDoc(e.ctx, agent("claude:b2"), room, "# Plan\nstep one", 0); err != nil {
		t.Fatal(err)
	}
	body := e.page(e.client(), "/rooms/"+room)
	for _, want := range []string{"Roster", "codex:a1", "claude:b2", "released the stick", "parser done", "wire the lexer",
		"lex/lex.go:10-42", ">edit<", "the loop", "keep tabs?", "touch go.mod", "is the API frozen?", ">question<",
		"edited the document", "# Plan\nstep one", "joined", "active", `data-live="/rooms/` + room + `/live?after=`} {
		if !strings.Contains(body, want) {
			t.Errorf("the room page lacks %q", want)
		}
	}
	if strings.Contains(body, "Older events") || strings.Contains(body, "Conclusion") {
		t.Error("a short open room shows older events or a conclusion")
	}
	if st, _ := e.get(e.client(), "/rooms/room_0000000000000000"); st != http.StatusNotFound {
		t.Errorf("a room that is not there: %d", st)
	}
}

func TestOlderEvents(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "long")
	for i := range 150 {
		e.note("codex:a1", room, fmt.Sprintf("note number %03d", i), "")
	}
	c := e.client()
	body := e.page(c, "/rooms/"+room)
	if strings.Contains(body, "note number 049<") || !strings.Contains(body, "note number 050") || !strings.Contains(body, "note number 149") {
		t.Fatal("the first page is not the newest 100 events")
	}
	m := regexp.MustCompile(`href="/rooms/` + room + `\?before=(\d+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no older-events link")
	}
	older := e.page(c, "/rooms/"+room+"?before="+m[1])
	if !strings.Contains(older, "note number 000") || !strings.Contains(older, "note number 049") || strings.Contains(older, "note number 050") ||
		!strings.Contains(older, "Newest events") || strings.Contains(older, "data-live") || strings.Contains(older, "?before=") {
		t.Fatalf("the older page:\n%s", older)
	}
	if st, _ := e.get(c, "/rooms/"+room+"?before=x"); st != http.StatusBadRequest {
		t.Errorf("before=x: %d", st)
	}
}

func TestClosedRoomShowsConclusion(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "ended")
	e.note("codex:a1", room, "last words", "")
	if _, err := e.svc.Close(e.ctx, agent("codex:a1"), room, "finished", "We ship v2 on Friday."); err != nil {
		t.Fatal(err)
	}
	body := e.page(e.client(), "/rooms/"+room)
	c, f := strings.Index(body, "We ship v2 on Friday."), strings.Index(body, `id="feed"`)
	if c < 0 || f < 0 || c > f || !strings.Contains(body, "Conclusion") || !strings.Contains(body, "finished") {
		t.Fatalf("the conclusion is not at the top:\n%s", body)
	}
	if strings.Contains(body, "data-live") {
		t.Error("a closed room's page listens for events")
	}
}

func TestLiveDeliversNewEvent(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "live")
	e.join("claude:b2", "live")
	body := e.page(e.client(), "/rooms/"+room)
	m := regexp.MustCompile(`data-live="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no live URL")
	}
	live := strings.ReplaceAll(m[1], "&amp;", "&")
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+live, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("live: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<22)
	if !lines.Scan() || lines.Text() != "retry: 2000" {
		t.Fatalf("first line %q", lines.Text())
	}
	e.turn("codex:a1", room, stick.Handoff{Status: "live status " + hostile, NextAction: "go on"})
	var event string
	for lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "data: ") {
			event += strings.TrimPrefix(line, "data: ") + "\n"
		}
		if line == "" && strings.Contains(event, "released the stick") {
			break
		}
	}
	if !strings.Contains(event, "live status &lt;script&gt;") || !strings.Contains(event, `class="event event-release"`) {
		t.Fatalf("the release did not come as escaped HTML:\n%s", event)
	}
	noRawScript(t, "live", event)
}

func TestSignInAndOut(t *testing.T) {
	e := newEnv(t, false)
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "ana", Role: stick.AccessViewer})
	if err != nil {
		t.Fatal(err)
	}
	e.join("codex:a1", "seen")
	c := e.client()
	for path, want := range map[string]string{"/": "/signin", "/rooms/room_x": "/signin?next=%2Frooms%2Froom_x"} {
		resp, err := c.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
			t.Fatalf("%s unsigned: %d %s", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	form := e.page(c, "/signin")
	m := csrfRe.FindStringSubmatch(form)
	if m == nil {
		t.Fatalf("the sign-in form has no CSRF token:\n%s", form)
	}
	post := func(path string, v url.Values) *http.Response {
		resp, err := c.PostForm(e.srv.URL+path, v)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post("/signin", url.Values{"token": {secret}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-in without CSRF: %d", resp.StatusCode)
	}
	if resp := post("/signin", url.Values{"token": {secret}, "csrf": {strings.Repeat("0", 64)}}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-in with a wrong CSRF: %d", resp.StatusCode)
	}
	if resp := post("/signin", url.Values{"token": {"stk_wrong"}, "csrf": {m[1]}}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("sign-in with a wrong token: %d", resp.StatusCode)
	}
	resp := post("/signin", url.Values{"token": {secret}, "csrf": {m[1]}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("sign-in: %d", resp.StatusCode)
	}
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "stick_session" {
			session = ck
		}
	}
	// Lax, so a link followed from another site arrives signed in (no
	// GET writes); the CSRF cookie stays Strict.
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Secure || session.Value != secret {
		t.Fatalf("the session cookie: %+v", session)
	}
	body := e.page(c, "/")
	if !strings.Contains(body, ">seen<") || !strings.Contains(body, "Sign out") || !strings.Contains(body, "viewer") {
		t.Fatalf("signed in, the list:\n%s", body)
	}
	// A viewer finds no form that writes: the only one signs it out.
	forms := regexp.MustCompile(`<form[^>]*method="post"[^>]*>`).FindAllString(body, -1)
	rooms := regexp.MustCompile(`href="/rooms/([^"]+)"`).FindStringSubmatch(body)
	roomBody := e.page(c, "/rooms/"+rooms[1])
	forms = append(forms, regexp.MustCompile(`<form[^>]*method="post"[^>]*>`).FindAllString(roomBody, -1)...)
	for _, f := range forms {
		if !strings.Contains(f, `action="/signout"`) {
			t.Errorf("a viewer sees a form that writes: %s", f)
		}
	}
	if resp := post("/signout", url.Values{}); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("sign-out without CSRF: %d", resp.StatusCode)
	}
	resp = post("/signout", url.Values{"csrf": {m[1]}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", resp.StatusCode)
	}
	cleared := false
	for _, ck := range resp.Cookies() {
		cleared = cleared || ck.Name == "stick_session" && ck.MaxAge < 0
	}
	if !cleared {
		t.Fatal("sign-out left the session cookie")
	}
	if st, _ := e.get(c, "/"); st != http.StatusSeeOther {
		t.Fatalf("after sign-out: %d", st)
	}
}

func TestSecureCookieOverTLS(t *testing.T) {
	e := newEnv(t, false)
	_, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "bo", Role: stick.AccessViewer})
	if err != nil {
		t.Fatal(err)
	}
	h := e.srv.Config.Handler
	tls := httptest.NewTLSServer(h)
	defer tls.Close()
	c := tls.Client()
	c.Jar, _ = cookiejar.New(nil)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(tls.URL + "/signin")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfRe.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("no CSRF token")
	}
	resp, err = c.PostForm(tls.URL+"/signin", url.Values{"token": {secret}, "csrf": {m[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "stick_session" && !ck.Secure {
			t.Fatal("the session cookie over TLS is not Secure")
		}
	}
}

func TestHostileTextIsEscaped(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "evil")
	e.join("claude:b2", "evil")
	e.note("codex:a1", room, hostile+strings.Repeat("x", 60000), "")
	e.turn("codex:a1", room, stick.Handoff{Status: hostile, NextAction: hostile,
		Artifacts:     []stick.Artifact{{Path: "javascript:alert(3)", Role: stick.RoleEdit, Note: hostile}},
		OpenQuestions: []string{hostile}, DoNot: []string{hostile}})
	if _, err := e.svc.UpdateDoc(e.ctx, agent("claude:b2"), room, hostile+strings.Repeat("y", stick.MaxDocLen/2), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.JoinPath(e.ctx, stick.Caller{AgentID: "x:1", Kind: stick.KindProcess, DisplayName: `<script>alert(4)</script>`}, stick.JoinRequest{Name: "evil"}); err != nil {
		t.Fatal(err)
	}
	c := e.client()
	body := e.page(c, "/rooms/"+room)
	noRawScript(t, "room", body)
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(body, `\x1b[31mred`) {
		t.Error("the hostile text is not shown, escaped")
	}
	noRawScript(t, "rooms", e.page(c, "/?q="+url.QueryEscape(hostile)))
	// A room joined by a path whose name is hostile: the list, and its
	// live stream, show the path with its controls written out.
	dir := filepath.Join(t.TempDir(), "\x1b[31mevil\u202e<script>alert(5)")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.JoinPath(e.ctx, agent("codex:a1"), stick.JoinRequest{Path: dir}); err != nil {
		t.Fatal(err)
	}
	list := e.page(c, "/")
	noRawScript(t, "rooms with a hostile path", list)
	if !strings.Contains(list, `\x1b[31mevil`) || !strings.Contains(list, "&lt;script&gt;alert(5)") {
		t.Errorf("the hostile path is not shown, written out:\n%s", list)
	}
	stream := e.firstEvent("/rooms/live", "rooms")
	noRawScript(t, "rooms stream with a hostile path", stream)
	if !strings.Contains(stream, `\x1b[31mevil`) {
		t.Errorf("the stream lacks the hostile path:\n%s", stream)
	}
	if _, err := e.svc.Close(e.ctx, agent("claude:b2"), room, hostile, hostile); err != nil {
		t.Fatal(err)
	}
	noRawScript(t, "closed room", e.page(c, "/rooms/"+room))
}

// The Secure mark follows the hub's answer at every cookie: a public URL
// an operator changes to https marks the next cookies Secure, over a
// plain connection from the hub's proxy, with no restart.
func TestSecureCookieFollowsTheHub(t *testing.T) {
	var https atomic.Bool
	e := newEnv(t, false, func(c *web.Config) { c.Secure = https.Load })
	c := e.client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	csrfCookie := func() *http.Cookie {
		t.Helper()
		c.Jar, _ = cookiejar.New(nil)
		resp, err := c.Get(e.srv.URL + "/signin")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for _, ck := range resp.Cookies() {
			if ck.Name == "stick_csrf" {
				return ck
			}
		}
		t.Fatal("the sign-in page set no CSRF cookie")
		return nil
	}
	if csrfCookie().Secure {
		t.Fatal("an http hub marked its cookie Secure")
	}
	https.Store(true)
	if !csrfCookie().Secure {
		t.Fatal("once the hub is https, its next cookie is not Secure")
	}
}

// A message shows its recipients, its channel and its interrupt mark; the
// roster shows a member's handle and standby.
func TestRoomPageShowsMessages(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "msgs")
	e.join("claude:b2", "msgs")
	if _, err := e.svc.Post(e.ctx, agent("codex:a1"), room, stick.Note{Text: "please review", To: []string{"claude:b2"}, Interrupt: true, Channel: "errors"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SetHandle(e.ctx, agent("claude:b2"), room, "reviewer"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SetStandby(e.ctx, agent("claude:b2"), room, true); err != nil {
		t.Fatal(err)
	}
	body := e.page(e.client(), "/rooms/"+room)
	for _, want := range []string{"please review", `<span class="muted">to</span> <strong class="agent">claude:b2</strong>`, ">#errors<", ">interrupt<",
		`<span class="handle">@reviewer</span>`, `<span class="badge">standby</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the room page lacks %q", want)
		}
	}
}
