package render_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

func TestDurationAndCount(t *testing.T) {
	for d, want := range map[time.Duration]string{
		45 * time.Minute: "45m", 90 * time.Minute: "1h30m", 4 * time.Hour: "4h", 30 * time.Second: "30s",
		100 * time.Millisecond: "100ms", 61 * time.Second: "1m1s",
	} {
		if got := render.Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
	if got := render.Count(1, "byte") + ", " + render.Count(3, "byte"); got != "1 byte, 3 bytes" {
		t.Errorf("Count = %q", got)
	}
}

func TestDocNote(t *testing.T) {
	for _, c := range []struct {
		e    stick.Event
		want string
	}{
		{stick.Event{Type: stick.EventDoc, Data: []byte(`{"version":3,"op":"append","section":"Decisions"}`)}, "doc v3, append to Decisions"},
		{stick.Event{Type: stick.EventDoc, Data: []byte(`{"version":2,"op":"update\u001b[2J"}`)}, `doc v2, update\x1b[2J`},
		{stick.Event{Type: stick.EventClose, Data: []byte(`{"doc_version":2}`)}, "conclusion in doc v2"},
		{stick.Event{Type: stick.EventNote, Data: []byte(`{"version":3}`)}, ""},
		{stick.Event{Type: stick.EventDoc, Data: []byte(`not json`)}, ""},
	} {
		if got := render.DocNote(c.e); got != c.want {
			t.Errorf("DocNote(%s %s) = %q, want %q", c.e.Type, c.e.Data, got, c.want)
		}
	}
}

// The plain text carries the room's text as it is, with the lines after
// the first of a field indented under it.
func TestPlainHandoffAndDocument(t *testing.T) {
	h := stick.Handoff{Status: "done\nmostly", NextAction: "review", DoNot: []string{"push \x1b[31m"},
		Artifacts: []stick.Artifact{{Path: "a.go", Lines: []int{3, 9}, Role: "review", Note: "the loop"}}}
	want := "  status: done\n    mostly\n  next_action: review\n  artifact (review): a.go:3-9 - the loop\n  do not: push \x1b[31m"
	if got := render.PlainHandoff(h); got != want {
		t.Errorf("PlainHandoff:\n%q\nwant\n%q", got, want)
	}
	if got := render.PlainDocument(stick.Document{DocVersion: stick.DocVersion{RoomID: "r1"}}); got != "room_id r1 has no document yet (version 0, empty)." {
		t.Errorf("PlainDocument of no document = %q", got)
	}
	at := time.Date(2026, 4, 7, 10, 0, 0, 0, time.UTC)
	d := stick.Document{Content: "# Plan", DocVersion: stick.DocVersion{RoomID: "r1", Version: 2, Author: "bob", Op: stick.DocAppend, Size: 6, CreatedAt: at}}
	want = "room_id r1 document version 2: append by bob at 2026-04-07T10:00:00Z, 6 bytes.\n--- content ---\n# Plan\n--- end of version 2 ---"
	if got := render.PlainDocument(d); got != want {
		t.Errorf("PlainDocument:\n%q\nwant\n%q", got, want)
	}
}

// The markdown export fences the document with more backticks than it
// holds, and quotes a note so that it cannot write a heading.
func TestMarkdownStructureStaysItsOwn(t *testing.T) {
	at := time.Date(2026, 4, 7, 10, 0, 0, 0, time.UTC)
	tr := stick.Transcript{
		Room:     stick.RoomStatus{RoomID: "r1", CanonicalPath: "/src/app", CreatedAt: at, LastEventSeq: 1},
		Events:   []stick.Event{{Seq: 1, Type: stick.EventNote, From: "bob", Text: "# not a heading\nline", CreatedAt: at}},
		Document: stick.Document{Content: "```go\nx\n```\n", DocVersion: stick.DocVersion{Version: 1, Op: stick.DocUpdate, Size: 14, CreatedAt: at}},
		TakenAt:  at,
	}
	var b strings.Builder
	render.Markdown(&b, tr)
	out := b.String()
	if !strings.Contains(out, "\n````markdown\n```go\nx\n```\n````\n") {
		t.Errorf("the document is not fenced by four backticks:\n%s", out)
	}
	if !strings.Contains(out, "\n> # not a heading\n> line\n") || strings.Contains(out, "\n# not a heading") {
		t.Errorf("the note is not quoted:\n%s", out)
	}
}

func TestSafeWriter(t *testing.T) {
	var b strings.Builder
	n, err := render.SafeWriter(&b).Write([]byte("path \x1b]0;x\x07\n"))
	if err != nil || n != 12 || b.String() != "path \\x1b]0;x\\x07\n" {
		t.Errorf("SafeWriter wrote %q (%d, %v)", b.String(), n, err)
	}
}

// The markdown export names the member responsible for the conclusion,
// and a concluder event says whom it named.
func TestMarkdownConcluder(t *testing.T) {
	at := time.Date(2026, 4, 7, 10, 0, 0, 0, time.UTC)
	tr := stick.Transcript{
		Room:    stick.RoomStatus{RoomID: "r1", RoomName: "review", Concluder: "claude-code@alex\x1b[2J", CreatedAt: at, LastEventSeq: 1},
		Events:  []stick.Event{{Seq: 1, Type: stick.EventConcluder, From: "ops@ops", To: "claude-code@alex", CreatedAt: at}},
		TakenAt: at,
	}
	var b strings.Builder
	render.Markdown(&b, tr)
	out := b.String()
	for _, want := range []string{"- **Responsible for the conclusion:** claude-code@alex\\x1b[2J\n", "### #1 concluder · ops@ops → claude-code@alex\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the export lacks %q:\n%s", want, out)
		}
	}
}
