package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// takenAt is the line of a markdown export that says when it was made.
var takenAt = regexp.MustCompile(`exported from stick at [0-9: -]+\.`)

// A room exports as 'stick export' writes it: markdown (render.Markdown)
// by default and with format=md, JSON (render.TranscriptJSON) with
// format=json, each as an attachment named after the room; the room's
// page links to both.
func TestExportFormats(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "release-1.4")
	e.join("claude:b2", "release-1.4")
	e.turn("codex:a1", room, stick.Handoff{Status: "parser done", NextAction: "wire the lexer",
		Artifacts: []stick.Artifact{{Path: "lex/lex.go", Lines: []int{10, 42}, Role: stick.RoleEdit}}})
	e.note("claude:b2", room, "ship it?", stick.NoteType("question"))
	if _, err := e.svc.UpdateDoc(e.ctx, agent("claude:b2"), room, "# Plan\nstep one\n", 0); err != nil {
		t.Fatal(err)
	}
	v := e.visit("")
	page := v.get("/rooms/" + room).body
	for _, f := range []string{"md", "json"} {
		if !strings.Contains(page, `href="/rooms/`+room+`/export?format=`+f+`"`) {
			t.Errorf("the room's page has no %s export link", f)
		}
	}
	tr, err := e.svc.Transcript(e.ctx, room, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	render.Markdown(&want, tr)
	for _, path := range []string{"/rooms/" + room + "/export", "/rooms/" + room + "/export?format=md"} {
		a := v.get(path)
		if a.status != http.StatusOK || a.header.Get("Content-Type") != "text/markdown; charset=utf-8" ||
			a.header.Get("Content-Disposition") != `attachment; filename=release-1-4-`+room+`.md` || a.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s: %d %v", path, a.status, a.header)
		}
		if got := takenAt.ReplaceAllString(a.body, ""); got != takenAt.ReplaceAllString(want.String(), "") {
			t.Fatalf("%s is not render.Markdown's export:\n%s\nwant\n%s", path, a.body, want.String())
		}
	}
	a := v.get("/rooms/" + room + "/export?format=json")
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "application/json" ||
		a.header.Get("Content-Disposition") != `attachment; filename=release-1-4-`+room+`.json` {
		t.Fatalf("json: %d %v", a.status, a.header)
	}
	var wantJSON bytes.Buffer
	if err := render.TranscriptJSON(&wantJSON, tr); err != nil {
		t.Fatal(err)
	}
	taken := regexp.MustCompile(`\n  "taken_at": "[^"]*"|"idle_ms": \d+`)
	if got, want := taken.ReplaceAllString(a.body, ""), taken.ReplaceAllString(wantJSON.String(), ""); got != want || !strings.HasPrefix(a.body, "{\n  \"room\": {") {
		t.Fatalf("the JSON export is not render.TranscriptJSON's:\n%s\nwant\n%s", got, want)
	}
	if st, body := e.get(v.c, "/rooms/"+room+"/export?format=xml"); st != http.StatusBadRequest || !strings.Contains(body, "format must be md or json") {
		t.Errorf("format=xml: %d", st)
	}
	if st, _ := e.get(v.c, "/rooms/room_0000000000000000/export"); st != http.StatusNotFound {
		t.Errorf("a room that is not there: %d", st)
	}
}

// Hostile text exports as data: the JSON keeps it exactly, escaped by
// encoding/json so that no byte of it is markup; the markdown is
// text/markdown that no browser renders, with the controls written out
// and the text quoted, never at the start of a line.
func TestExportHostileText(t *testing.T) {
	e := newEnv(t, true)
	room := e.join("codex:a1", "evil")
	e.note("codex:a1", room, hostile+"\n# not a heading", "")
	doc := hostile + "\n```\n" + strings.Repeat("y", stick.MaxDocLen-100)
	if _, err := e.svc.UpdateDoc(e.ctx, agent("codex:a1"), room, doc, 0); err != nil {
		t.Fatal(err)
	}
	v := e.visit("")
	j := v.get("/rooms/" + room + "/export?format=json")
	if strings.Contains(j.body, "<script>") || strings.Contains(j.body, "\x1b") || !strings.Contains(j.body, `\u003cscript\u003e`) {
		t.Fatal("the JSON export holds hostile text as markup")
	}
	var got stick.Transcript
	if err := json.Unmarshal([]byte(j.body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Document.Content != doc || !slices.ContainsFunc(got.Events, func(ev stick.Event) bool { return ev.Text == hostile+"\n# not a heading" }) {
		t.Fatal("the JSON export does not keep the text exactly")
	}
	md := v.get("/rooms/" + room + "/export?format=md")
	if md.status != http.StatusOK || !strings.HasPrefix(md.header.Get("Content-Type"), "text/markdown") ||
		!strings.HasPrefix(md.header.Get("Content-Disposition"), "attachment;") || len(md.body) < stick.MaxDocLen-100 {
		t.Fatalf("markdown: %d %v", md.status, md.header)
	}
	if strings.Contains(md.body, "\x1b") {
		t.Error("the markdown export holds a raw escape")
	}
	fence := "\n" + strings.Repeat("`", 4) + "markdown\n" + render.Text(doc) + "\n" + strings.Repeat("`", 4) + "\n"
	if !strings.Contains(md.body, fence) {
		t.Error("the document is not fenced by a fence longer than its own")
	}
	for _, line := range strings.Split(strings.Replace(md.body, fence, "\n", 1), "\n") {
		if strings.HasPrefix(line, "<script>") || line == "# not a heading" {
			t.Errorf("member text at the start of a line of the markdown: %q", line)
		}
	}
}

// A token limited to some rooms exports none of the others.
func TestExportScopedToken(t *testing.T) {
	e := newEnv(t, false)
	alpha := e.join("codex:a1", "alpha")
	beta := e.join("codex:a1", "beta")
	v := e.visit(e.token("alpha team", stick.AccessViewer, stick.Scope{Names: []string{"alpha"}}))
	if a := v.get("/rooms/" + alpha + "/export?format=json"); a.status != http.StatusOK {
		t.Fatalf("its own room: %d", a.status)
	}
	if a := v.get("/rooms/" + beta + "/export?format=json"); a.status != http.StatusNotFound || strings.Contains(a.body, "beta") {
		t.Fatalf("another room: %d\n%s", a.status, a.body)
	}
}
