package stick_test

import (
	"slices"
	"testing"

	"github.com/stickhq/stick/stick"
)

// TestSearchText: which events a search finds, with what text and as what
// kind of hit, for every event type.
func TestSearchText(t *testing.T) {
	h := &stick.Handoff{Status: "parser done", NextAction: "test the lexer", OpenQuestions: []string{"why flaky?", "who owns CI?"},
		DoNot: []string{"touch main"}, Artifacts: []stick.Artifact{{Path: "parse.go", Role: stick.RoleEdit}}}
	for _, c := range []struct {
		name string
		e    stick.Event
		ok   bool
		text string
		kind string
	}{
		{"note", stick.Event{Type: stick.EventNote, Text: "the cache is flaky"}, true, "the cache is flaky", "note"},
		{"typed note", stick.Event{Type: stick.EventNote, Text: "why?", MessageType: stick.NoteQuestion}, true, "why?", "question"},
		{"custom note", stick.Event{Type: stick.EventNote, Text: "green", MessageType: "x-ci-status"}, true, "green", "x-ci-status"},
		{"release", stick.Event{Type: stick.EventRelease, Handoff: h}, true, "parser done\ntest the lexer\nwhy flaky?\nwho owns CI?", "release"},
		{"release without questions", stick.Event{Type: stick.EventRelease, Handoff: &stick.Handoff{Status: "s", NextAction: "n"}}, true, "s\nn\n", "release"},
		{"pass", stick.Event{Type: stick.EventPass, To: "bo", Handoff: &stick.Handoff{Status: "s", NextAction: "n", OpenQuestions: []string{"q"}}}, true, "s\nn\nq", "pass"},
		{"close", stick.Event{Type: stick.EventClose, Reason: "done", Text: "Shipped the parser."}, true, "done\nShipped the parser.", "close"},
		{"close without conclusion", stick.Event{Type: stick.EventClose, Reason: "abandoned: nobody called"}, true, "abandoned: nobody called\n", "close"},
		{"close without reason", stick.Event{Type: stick.EventClose, Text: "Shipped."}, true, "Shipped.", "close"},
		{"claim", stick.Event{Type: stick.EventClaim, Reason: "sequence"}, false, "", "claim"},
		{"takeover", stick.Event{Type: stick.EventTakeover, Reason: "the holder is gone"}, false, "", "takeover"},
		{"join", stick.Event{Type: stick.EventJoin}, false, "", "join"},
		{"leave", stick.Event{Type: stick.EventLeave}, false, "", "leave"},
		{"policy", stick.Event{Type: stick.EventPolicy}, false, "", "policy"},
		{"reorder", stick.Event{Type: stick.EventReorder}, false, "", "reorder"},
		{"doc", stick.Event{Type: stick.EventDoc, Text: "appended text"}, false, "", "doc"},
	} {
		text, ok := stick.SearchText(c.e)
		if ok != c.ok || text != c.text {
			t.Errorf("%s: SearchText = %q, %v; want %q, %v", c.name, text, ok, c.text, c.ok)
		}
		if kind := stick.HitType(c.e); kind != c.kind {
			t.Errorf("%s: HitType = %q, want %q", c.name, kind, c.kind)
		}
		if ok && !slices.Contains(stick.SearchedEvents, c.e.Type) {
			t.Errorf("%s: searched, but not in SearchedEvents", c.name)
		}
	}
	// Every kind of event hit is a kind SearchQuery.Type accepts.
	for _, typ := range stick.SearchedEvents {
		if typ != stick.EventNote && !slices.Contains(stick.SearchTypes, string(typ)) {
			t.Errorf("%s is searched but is no SearchTypes entry", typ)
		}
	}
}

// TestDocumentSearchText: a document is found by paragraph, each with the
// heading above it; headings are entries of their own, a fenced block is
// one entry whatever blank lines it holds, and text before the first
// heading has no section.
func TestDocumentSearchText(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      []stick.Paragraph
	}{
		{"empty", "", nil},
		{"blank lines only", "\n\n  \n", nil},
		{"no heading", "First line.\nSecond line.\n\nAnother paragraph.", []stick.Paragraph{
			{Section: "", Text: "First line.\nSecond line."}, {Section: "", Text: "Another paragraph."}}},
		{"sections", "Intro.\n\n# Plan\n\nParse first.\n\n## Risks\nThe lexer.\n\n### Deep\n\nx\n", []stick.Paragraph{
			{Section: "", Text: "Intro."}, {Section: "Plan", Text: "# Plan"}, {Section: "Plan", Text: "Parse first."},
			{Section: "Risks", Text: "## Risks"}, {Section: "Risks", Text: "The lexer."},
			{Section: "Deep", Text: "### Deep"}, {Section: "Deep", Text: "x"}}},
		{"fenced block", "## Setup\n\n```sh\n# not a heading\n\nmake\n```\nafter\n", []stick.Paragraph{
			{Section: "Setup", Text: "## Setup"}, {Section: "Setup", Text: "```sh\n# not a heading\n\nmake\n```\nafter"}}},
		{"no space after #", "#42 is an issue\n", []stick.Paragraph{{Section: "", Text: "#42 is an issue"}}},
	} {
		got := stick.Paragraphs(c.doc)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: Paragraphs = %q, want %q", c.name, got, c.want)
		}
	}
}
