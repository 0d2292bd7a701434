package web_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// writeDoc saves content as the room's next document version, by id.
func (e *env) writeDoc(id, room, content string) stick.Document {
	e.t.Helper()
	cur, err := e.svc.ReadDoc(e.ctx, room, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	d, err := e.svc.UpdateDoc(e.ctx, agent(id), room, content, cur.Version)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// currentDoc reads the room's current document.
func (e *env) currentDoc(room string) stick.Document {
	e.t.Helper()
	d, err := e.svc.ReadDoc(e.ctx, room, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// sendForm sends a form and returns the status, the Location and the body.
func (e *env) sendForm(c *http.Client, path string, form url.Values) (int, string, string) {
	e.t.Helper()
	resp, err := c.PostForm(e.srv.URL+path, form)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// signInWith signs c in with a token's secret.
func (e *env) signInWith(c *http.Client, secret string) {
	e.t.Helper()
	m := csrfRe.FindStringSubmatch(e.page(c, "/signin"))
	if m == nil {
		e.t.Fatal("no CSRF token on the sign-in page")
	}
	if st, _, body := e.sendForm(c, "/signin", url.Values{"token": {secret}, "csrf": {m[1]}}); st != http.StatusSeeOther {
		e.t.Fatalf("sign-in: %d\n%s", st, body)
	}
}

var (
	textareaRe = regexp.MustCompile(`(?s)<textarea[^>]*name="content"[^>]*>\n(.*?)</textarea>`)
	expectedRe = regexp.MustCompile(`name="expected" value="(\d+)"`)
)

// editForm reads the edit form's text, expected version and CSRF value.
func editForm(t *testing.T, page string) (text string, expected int64, csrf string) {
	t.Helper()
	m, x, c := textareaRe.FindStringSubmatch(page), expectedRe.FindStringSubmatch(page), csrfRe.FindStringSubmatch(page)
	if m == nil || x == nil || c == nil {
		t.Fatalf("no edit form:\n%s", page)
	}
	expected, _ = strconv.ParseInt(x[1], 10, 64)
	return html.UnescapeString(m[1]), expected, c[1]
}

const planDoc = "# Plan\n\n- parse\n- lex\n\n```\ncode <b>\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"

func TestDocPageRendersMarkdown(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("claude:b2", "plan")
	e.writeDoc("claude:b2", room, planDoc)
	c := e.client()
	body := e.page(c, "/rooms/"+room+"/doc")
	for _, want := range []string{"<h1>Plan</h1>", "<li>parse</li>", "<pre><code>code &lt;b&gt;", "<td>1</td>",
		"Version 1 (current)", "claude:b2", "History", `href="/rooms/` + room + `/doc?version=1"`, `href="/rooms/` + room + `/doc/edit"`,
		`view=source`} {
		if !strings.Contains(body, want) {
			t.Errorf("the document page lacks %q", want)
		}
	}
	source := e.page(c, "/rooms/"+room+"/doc?view=source")
	if !strings.Contains(source, "# Plan\n\n- parse") || strings.Contains(source, "<h1>Plan</h1>") {
		t.Errorf("the source view:\n%s", source)
	}
	roomPage := e.page(c, "/rooms/"+room)
	for _, want := range []string{"<h1>Plan</h1>", "<summary>Source</summary>", "# Plan\n\n- parse", `href="/rooms/` + room + `/doc"`,
		`href="/rooms/` + room + `/doc/edit"`} {
		if !strings.Contains(roomPage, want) {
			t.Errorf("the room page lacks %q", want)
		}
	}
	empty := e.join("codex:a1", "empty")
	if body := e.page(c, "/rooms/"+empty+"/doc"); !strings.Contains(body, "No one has written the document yet") {
		t.Errorf("an empty document:\n%s", body)
	}
	if st, _ := e.get(c, "/rooms/room_0000000000000000/doc"); st != http.StatusNotFound {
		t.Errorf("the document of a room that is not there: %d", st)
	}
}

func TestDocHistoryAndVersions(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "hist")
	e.join("claude:b2", "hist")
	e.writeDoc("codex:a1", room, "first text\n")
	e.writeDoc("claude:b2", room, "second text\n")
	e.writeDoc("codex:a1", room, "third text\n")
	c := e.client()
	body := e.page(c, "/rooms/"+room+"/doc")
	v3, v2, v1 := strings.Index(body, ">Version 3</a>"), strings.Index(body, ">Version 2</a>"), strings.Index(body, ">Version 1</a>")
	if v3 < 0 || v2 < v3 || v1 < v2 {
		t.Fatalf("the history does not list versions 3, 2, 1:\n%s", body)
	}
	if !strings.Contains(body[v2:v1], "claude:b2") || !strings.Contains(body[v1:], "codex:a1") || !strings.Contains(body, "third text") {
		t.Errorf("the history lacks its authors:\n%s", body[v3:])
	}
	old := e.page(c, "/rooms/"+room+"/doc?version=1")
	if !strings.Contains(old, "first text") || strings.Contains(old, "third text") || !strings.Contains(old, "Version 1 of 3") {
		t.Errorf("version 1:\n%s", old)
	}
	if !strings.Contains(e.page(c, "/rooms/"+room+"/doc?version=2&view=source"), "second text") {
		t.Error("the source of version 2")
	}
	for q, want := range map[string]int{"version=9": http.StatusNotFound, "version=x": http.StatusBadRequest, "version=-1": http.StatusBadRequest} {
		st, page := e.get(c, "/rooms/"+room+"/doc?"+q)
		if st != want || !strings.Contains(page, "history") {
			t.Errorf("%s: %d, want %d, with what to do:\n%s", q, st, want, page)
		}
	}
	if _, page := e.get(c, "/rooms/"+room+"/doc?version=9"); !strings.Contains(page, "has no version 9: its newest version is 3") {
		t.Errorf("an unknown version:\n%s", page)
	}
}

func TestDocDiff(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "diff")
	e.join("claude:b2", "diff")
	e.writeDoc("codex:a1", room, "alpha\nbeta\ngamma\n")
	e.writeDoc("claude:b2", room, "alpha\nBETA\ngamma\ndelta\n")
	c := e.client()
	removed := func(s string) string {
		return `<span aria-hidden="true">-</span><span class="sr-only">removed</span></td><td class="line"><del>` + s + `</del>`
	}
	added := func(s string) string {
		return `<span aria-hidden="true">&#43;</span><span class="sr-only">added</span></td><td class="line"><ins>` + s + `</ins>`
	}
	fwd := e.page(c, "/rooms/"+room+"/doc/diff?from=1&to=2")
	for _, want := range []string{removed("beta"), added("BETA"), added("delta"), `class="diff-ctx"`, "alpha", "2 lines added, 1 lines removed",
		"by <strong>claude:b2</strong>", `<option value="1" selected>`, `<select id="diff-to" name="to">`} {
		if !strings.Contains(fwd, want) {
			t.Errorf("1 to 2 lacks %q", want)
		}
	}
	if strings.Contains(fwd, removed("alpha")) || strings.Contains(fwd, added("beta")) {
		t.Errorf("1 to 2 marks the wrong lines:\n%s", fwd)
	}
	back := e.page(c, "/rooms/"+room+"/doc/diff?from=2&to=1")
	for _, want := range []string{added("beta"), removed("BETA"), removed("delta")} {
		if !strings.Contains(back, want) {
			t.Errorf("2 to 1 lacks %q", want)
		}
	}
	if dflt := e.page(c, "/rooms/"+room+"/doc/diff"); !strings.Contains(dflt, "Version 1 to 2") || !strings.Contains(dflt, added("delta")) {
		t.Errorf("the default diff is not the newest change:\n%s", dflt)
	}
	if fromEmpty := e.page(c, "/rooms/"+room+"/doc/diff?from=0&to=1"); !strings.Contains(fromEmpty, added("alpha")) {
		t.Error("a diff from the empty document")
	}
	if same := e.page(c, "/rooms/"+room+"/doc/diff?from=2&to=2"); !strings.Contains(same, "No line differs") {
		t.Error("a version against itself")
	}
	for q, want := range map[string]int{"from=x&to=2": http.StatusBadRequest, "from=1&to=-2": http.StatusBadRequest,
		"from=1&to=7": http.StatusNotFound, "from=5&to=1": http.StatusNotFound} {
		if st, page := e.get(c, "/rooms/"+room+"/doc/diff?"+q); st != want || !strings.Contains(page, "Pick a version") {
			t.Errorf("%s: %d, want %d\n%s", q, st, want, page)
		}
	}
}

func TestDocEditSaves(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "edit")
	e.writeDoc("codex:a1", room, "# Old\n<tag> & more\n")
	c := e.client()
	form := e.page(c, "/rooms/"+room+"/doc/edit")
	text, expected, csrf := editForm(t, form)
	if text != "# Old\n<tag> & more\n" || expected != 1 {
		t.Fatalf("the form holds %q at version %d", text, expected)
	}
	if !strings.Contains(form, "human:local@local") || !strings.Contains(form, "Save and join") || !strings.Contains(form, `<label for="doc-content">`) {
		t.Errorf("the form does not say who writes, or that saving joins:\n%s", form)
	}
	st, loc, body := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "expected": {"1"}, "content": {"# New\r\nline two\r\n"}})
	if st != http.StatusSeeOther || loc != "/rooms/"+room+"/doc" {
		t.Fatalf("save: %d %s\n%s", st, loc, body)
	}
	d := e.currentDoc(room)
	if d.Version != 2 || d.Author != "human:local@local" || d.Content != "# New\nline two\n" {
		t.Fatalf("saved %+v", d)
	}
	status, err := e.svc.RoomState(e.ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	joined := false
	for _, m := range status.Members {
		joined = joined || m.AgentID == "human:local@local" && m.Kind == stick.KindOneShot
	}
	if !joined {
		t.Errorf("the person is no member after saving: %+v", status.Members)
	}
	if again := e.page(c, "/rooms/"+room+"/doc/edit"); strings.Contains(again, "Save and join") {
		t.Error("a member is told that saving joins it")
	}
	// Refused: no CSRF value, a form without its version; nothing changes.
	if st, _, _ := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"expected": {"2"}, "content": {"forged"}}); st != http.StatusForbidden {
		t.Errorf("without CSRF: %d", st)
	}
	if st, _, _ := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "content": {"no version"}}); st != http.StatusBadRequest {
		t.Errorf("without a version: %d", st)
	}
	if d := e.currentDoc(room); d.Version != 2 {
		t.Fatalf("a refused form wrote version %d", d.Version)
	}
}

func TestDocEditConflictKeepsYourText(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "race")
	e.writeDoc("codex:a1", room, "intro\nshared line\nend\n")
	c := e.client()
	_, expected, csrf := editForm(t, e.page(c, "/rooms/"+room+"/doc/edit"))
	// Another writer commits between the form and its save.
	e.writeDoc("codex:a1", room, "intro\nshared line, theirs\nend\ntheir appendix\n")
	mine := "intro\nshared line, mine <b>\nend\n"
	st, _, page := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "expected": {strconv.FormatInt(expected, 10)}, "content": {mine}})
	if st != http.StatusConflict {
		t.Fatalf("a stale save: %d\n%s", st, page)
	}
	text, next, csrf2 := editForm(t, page)
	if text != mine || next != 2 {
		t.Errorf("the conflict keeps %q at version %d, want your text at version 2", text, next)
	}
	for _, want := range []string{"changed while you edited it", "version 1", "now at version 2", "Their change, version 1 to 2",
		"by <strong>codex:a1</strong>", "<del>shared line</del>", "<ins>shared line, theirs</ins>", "<ins>their appendix</ins>", `role="alert"`, "Your change, from version 1", "<ins>shared line, mine &lt;b&gt;</ins>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the conflict page lacks %q", want)
		}
	}
	if d := e.currentDoc(room); d.Version != 2 || !strings.Contains(d.Content, "theirs") {
		t.Fatalf("the stale save wrote: %+v", d)
	}
	members := func() int {
		st, err := e.svc.RoomState(e.ctx, room)
		if err != nil {
			t.Fatal(err)
		}
		return len(st.Members)
	}
	// The person, no member yet, was not made one by a save that failed.
	if n := members(); n != 1 {
		t.Fatalf("the refused save joined the person: %d members", n)
	}
	merged := text + "their appendix\n"
	st, loc, body := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf2}, "expected": {strconv.FormatInt(next, 10)}, "content": {merged}})
	if st != http.StatusSeeOther || !strings.HasSuffix(loc, "/doc") {
		t.Fatalf("the merged save: %d\n%s", st, body)
	}
	if d := e.currentDoc(room); d.Version != 3 || d.Content != merged || d.Author != "human:local@local" {
		t.Fatalf("the merged save: %+v", d)
	}
	if n := members(); n != 2 {
		t.Fatalf("the save that landed did not join the person: %d members", n)
	}
}

func TestDocEditServiceErrorKeepsText(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "big")
	e.writeDoc("codex:a1", room, "small\n")
	c := e.client()
	_, _, csrf := editForm(t, e.page(c, "/rooms/"+room+"/doc/edit"))
	huge := "KEEP-ME " + strings.Repeat("x", stick.MaxDocLen)
	st, _, page := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "expected": {"1"}, "content": {huge}})
	if st != http.StatusBadRequest || !strings.Contains(page, "Nothing was saved") || !strings.Contains(page, "at most 1048576 are allowed") {
		t.Fatalf("an oversized document: %d\n%.2000s", st, page)
	}
	if text, expected, _ := editForm(t, page); text != huge || expected != 1 {
		t.Errorf("the oversized text is not kept (%d bytes, version %d)", len(text), expected)
	}
	if d := e.currentDoc(room); d.Version != 1 {
		t.Fatalf("an oversized save wrote version %d", d.Version)
	}
	// A body far past any document is refused unread.
	if st, _, _ := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "expected": {"1"}, "content": {strings.Repeat("y", 7*stick.MaxDocLen)}}); st != http.StatusRequestEntityTooLarge {
		t.Errorf("a 7 MB form: %d", st)
	}
	// A closed room's document is read, not written.
	if _, err := e.svc.Close(e.ctx, agent("codex:a1"), room, "done", ""); err != nil {
		t.Fatal(err)
	}
	if st, _, page := e.sendForm(c, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "expected": {"1"}, "content": {"late words"}}); st != http.StatusConflict ||
		!strings.Contains(page, "late words") {
		t.Errorf("a save in a closed room: %d\n%s", st, page)
	}
	if st, _ := e.get(c, "/rooms/"+room+"/doc/edit"); st != http.StatusConflict {
		t.Errorf("the edit form of a closed room: %d", st)
	}
	if page := e.page(c, "/rooms/"+room+"/doc"); strings.Contains(page, "/doc/edit") {
		t.Error("a closed room's document offers an edit")
	}
}

func TestDocViewerCannotEdit(t *testing.T) {
	e := newEnv(t, false)
	room := e.join("codex:a1", "watched")
	e.writeDoc("codex:a1", room, "# Watched\n")
	_, viewerSecret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "ana", Role: stick.AccessViewer})
	if err != nil {
		t.Fatal(err)
	}
	_, agentSecret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "bo", Role: stick.AccessAgent})
	if err != nil {
		t.Fatal(err)
	}
	viewer := e.client()
	e.signInWith(viewer, viewerSecret)
	for _, path := range []string{"/rooms/" + room, "/rooms/" + room + "/doc", "/rooms/" + room + "/doc/diff?from=0&to=1"} {
		if page := e.page(viewer, path); strings.Contains(page, "/doc/edit") || strings.Contains(page, "<textarea") {
			t.Errorf("a viewer is offered an edit on %s", path)
		}
	}
	st, page := e.get(viewer, "/rooms/"+room+"/doc/edit")
	if st != http.StatusForbidden || strings.Contains(page, "<textarea") || !strings.Contains(page, "role agent") {
		t.Errorf("a viewer's edit form: %d\n%s", st, page)
	}
	csrf := csrfRe.FindStringSubmatch(e.page(viewer, "/rooms/"+room))[1]
	st, _, page = e.sendForm(viewer, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "expected": {"1"}, "content": {"defaced"}})
	if st != http.StatusForbidden {
		t.Fatalf("a viewer's forged save: %d\n%s", st, page)
	}
	if d := e.currentDoc(room); d.Version != 1 || d.Content != "# Watched\n" {
		t.Fatalf("a viewer's forged save changed the document: %+v", d)
	}
	status, err := e.svc.RoomState(e.ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	if len(status.Members) != 1 {
		t.Fatalf("a viewer's forged save joined the room: %+v", status.Members)
	}
	// A person with an agent token writes as its own member.
	person := e.client()
	e.signInWith(person, agentSecret)
	_, expected, csrf := editForm(t, e.page(person, "/rooms/"+room+"/doc/edit"))
	if st, _, page := e.sendForm(person, "/rooms/"+room+"/doc/edit", url.Values{"csrf": {csrf}, "expected": {strconv.FormatInt(expected, 10)}, "content": {"# Watched\nby bo\n"}}); st != http.StatusSeeOther {
		t.Fatalf("an agent token's save: %d\n%s", st, page)
	}
	if d := e.currentDoc(room); d.Version != 2 || d.Author != "human:bo@bo" {
		t.Fatalf("the agent token's save: %+v", d)
	}
}

func TestDocHostile(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "evil")
	all := strings.Join(hostileDoc, "\n\n") + "\n\n"
	e.writeDoc("codex:a1", room, all)
	// 1 MB: the hostile lines at its start, middle and end, plain words
	// between (TestMarkdownHostile renders 1 MB of hostile lines alone;
	// the store indexes those far more slowly under the race detector).
	filler := strings.Repeat("some plain words of a long document\n", (stick.MaxDocLen-3*len(all))/2/37)
	e.writeDoc("codex:a1", room, all+filler+all+filler+all)
	c := e.client()
	for _, path := range []string{"", "/doc", "/doc?version=1", "/doc?view=source", "/doc/diff?from=0&to=1", "/doc/diff?from=1&to=2", "/doc/edit"} {
		body := e.page(c, "/rooms/"+room+path)
		noRawScript(t, path, body)
		checkHTML(t, "page "+path, body)
		if !strings.Contains(body, `\x1b[31mred`) {
			t.Errorf("%s does not show the escape written out", path)
		}
	}
}
