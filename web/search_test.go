package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// With no query the search page is its form; a query shows each hit with
// its room, where in the room, its kind, author and time, and its
// snippet with the matches marked; a document hit links to the room's
// document. Every page has the search box in its top bar.
func TestSearchPage(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "alpha")
	e.join("claude:b2", "alpha")
	e.note("claude:b2", room, "the parser needs a fuzz target", stick.NoteType("question"))
	e.turn("codex:a1", room, stick.Handoff{Status: "parsers agree now", NextAction: "wire the lexer"})
	if _, err := e.svc.UpdateDoc(e.ctx, agent("claude:b2"), room, "# Plan\n\nThe parser comes first.\n", 0); err != nil {
		t.Fatal(err)
	}
	v := e.visit("")
	if rooms := v.get("/").body; !strings.Contains(rooms, `action="/search"`) || !strings.Contains(rooms, `<label for="top-q"`) || !strings.Contains(rooms, `href="/search"`) {
		t.Fatalf("the top bar has no search box:\n%s", rooms)
	}
	empty := v.get("/search")
	if empty.status != http.StatusOK || !strings.Contains(empty.body, `<label for="search-q">`) || strings.Contains(empty.body, "match") {
		t.Fatalf("the empty search: %d\n%s", empty.status, empty.body)
	}
	a := v.get("/search?q=parser")
	if a.status != http.StatusOK {
		t.Fatalf("search: %d\n%s", a.status, a.body)
	}
	for _, want := range []string{"3 matches", "<mark>parser</mark>", "<mark>parsers</mark>", ">alpha<", ">question<", ">release<", ">document<",
		"claude:b2", "codex:a1", `href="/rooms/` + room + `#doc-h"`, "§ Plan", `value="parser"`} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the hits lack %q", want)
		}
	}
	links := regexp.MustCompile(`href="(/rooms/`+room+`#e(\d+))"`).FindAllStringSubmatch(a.body, -1)
	if len(links) != 2 {
		t.Fatalf("want 2 links to events, got %v", links)
	}
	roomPage := v.get(links[0][1][:strings.Index(links[0][1], "#")]).body
	for _, l := range links {
		if !strings.Contains(roomPage, `id="e`+l[2]+`"`) {
			t.Errorf("the room's page does not show the event %s a hit links to", l[2])
		}
	}
	typed := v.get("/search?q=parser&type=question").body
	if !strings.Contains(typed, "1 match,") || !strings.Contains(typed, `<option value="question" selected>`) {
		t.Errorf("type=question keeps other hits:\n%s", typed)
	}
	if none := v.get("/search?q=zeppelin").body; !strings.Contains(none, "No matches for “zeppelin”") {
		t.Errorf("a search finding nothing says nothing:\n%s", none)
	}
}

// A hit on an event older than the room's newest page links to the page
// of older events that shows it.
func TestSearchLinksOlderEvents(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "long")
	e.note("codex:a1", room, "an ancient decision", "")
	for i := range 150 {
		e.note("codex:a1", room, fmt.Sprintf("note number %03d", i), "")
	}
	e.note("codex:a1", room, "a recent ancient echo", "")
	v := e.visit("")
	body := v.get("/search?q=ancient").body
	older := regexp.MustCompile(`href="(/rooms/` + room + `\?before=(\d+))#e(\d+)"`).FindStringSubmatch(strings.ReplaceAll(body, "&amp;", "&"))
	if older == nil {
		t.Fatalf("no link to an older page:\n%s", body)
	}
	page := v.get(older[1])
	if page.status != http.StatusOK || !strings.Contains(page.body, `id="e`+older[3]+`"`) || !strings.Contains(page.body, "an ancient decision") {
		t.Fatalf("the older page does not show the hit #%s:\n%s", older[3], page.body)
	}
	if !regexp.MustCompile(`href="/rooms/` + room + `#e\d+"`).MatchString(body) {
		t.Errorf("the recent hit does not link to the newest page:\n%s", body)
	}
}

// Hostile text in a hit is shown as text: the snippet's pieces are
// escaped one by one, a "**" of the text is two stars and no mark, and a
// 1 MB document is searched and shown as a short snippet.
func TestSearchHostileText(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "evil")
	e.note("codex:a1", room, "needle "+hostile+" **bold** needle", "")
	doc := "# " + hostile + "\n\nneedle " + hostile + "\n\n" + strings.Repeat("hay ", (stick.MaxDocLen-200)/4)
	if _, err := e.svc.UpdateDoc(e.ctx, agent("codex:a1"), room, doc, 0); err != nil {
		t.Fatal(err)
	}
	v := e.visit("")
	a := v.get("/search?q=needle")
	if a.status != http.StatusOK || !strings.Contains(a.body, "<mark>needle</mark>") {
		t.Fatalf("search: %d\n%s", a.status, a.body)
	}
	noRawScript(t, "search", a.body)
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\x1b[31mred`, "**bold**"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the hits lack %q", want)
		}
	}
	if len(a.body) > 200_000 {
		t.Errorf("the page of two hits is %d bytes", len(a.body))
	}
	q := v.get("/search?q=" + url.QueryEscape(hostile))
	noRawScript(t, "search for hostile text", q.body)
	if !strings.Contains(q.body, `value="&lt;script&gt;`) {
		t.Errorf("the query is not shown back, escaped:\n%s", q.body)
	}
}

// A query the Service refuses shows its message beside the form, with
// the status of its error.
func TestSearchBadQuery(t *testing.T) {
	e := newEnv(t, true)
	e.join("codex:a1", "alpha")
	v := e.visit("")
	a := v.get("/search?q=" + url.QueryEscape("<>!!"))
	if a.status != http.StatusBadRequest || !strings.Contains(a.body, "has no word to search for") || !strings.Contains(a.body, `role="alert"`) ||
		!strings.Contains(a.body, `<label for="search-q">`) {
		t.Fatalf("a bad query: %d\n%s", a.status, a.body)
	}
	if strings.Contains(a.body, `"<>!!"`) {
		t.Error("the query is quoted back unescaped")
	}
	if b := v.get("/search?q=x&type=" + url.QueryEscape("<bogus>")); b.status != http.StatusBadRequest || strings.Contains(b.body, "<bogus>") {
		t.Fatalf("a bad type: %d\n%s", b.status, b.body)
	}
}

// A token limited to some rooms finds nothing of the others, and a
// viewer may search; signed out, the page asks to sign in.
func TestSearchScopedToken(t *testing.T) {
	e := newEnv(t, false)
	alpha := e.join("codex:a1", "alpha")
	beta := e.join("codex:a1", "beta")
	e.note("codex:a1", alpha, "shared word in alpha", "")
	e.note("codex:a1", beta, "shared word in beta", "")
	v := e.visit(e.token("alpha team", stick.AccessViewer, stick.Scope{Names: []string{"alpha"}}))
	a := v.get("/search?q=shared")
	if a.status != http.StatusOK || !strings.Contains(a.body, "1 match,") || !strings.Contains(a.body, alpha) || strings.Contains(a.body, beta) ||
		strings.Contains(a.body, "in beta") {
		t.Fatalf("a token of alpha searches beta: %d\n%s", a.status, a.body)
	}
	if st, _ := e.get(e.client(), "/search?q=shared"); st != http.StatusSeeOther {
		t.Fatalf("search signed out: %d", st)
	}
}
