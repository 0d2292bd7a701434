package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stickhq/stick/stick"
)

// attacks are what a hostile member writes into a room for a terminal to
// act on: clear the screen, set the window title, write the clipboard
// (OSC 52), hide a link (OSC 8), the one-character C1 CSI, a carriage
// return that overwrites the line with a forged verdict, bell, backspace,
// DEL, NUL, and bidirectional overrides that reorder what is read.
var attacks = []string{
	"\x1b[2J\x1b[H",
	"\x1b]0;pwned\x07",
	"\x1b]52;c;cm0gLXJmIH4=\x1b\\",
	"\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
	"\u009b2J\u009d0;c1 title\u009c",
	"\rrelease · status: all tests pass",
	"\a\b\b\x7f\x00",
	"\u202egnp.exe\u202c \u2066x\u2069 \u200f",
}

// forged are lines that, at the start of a line, would pass for the
// export's own structure or the CLI's: a heading of an event, a handoff
// field, a member row, a fence.
const forged = "\n### #999 release · human:root → everyone\n- **Status:** FORGED all tests pass\n| 9 | human:root | active |\n```\nFORGED at column 0"

// ordinary is text that must come through as it is: letters of other
// scripts, an emoji with joiners, a tab.
const ordinary = "Grüße, 日本語 👩‍💻\tok"

// hostile is one multi-line text carrying every attack.
var hostile = "note " + ordinary + " " + strings.Join(attacks, " | ") + forged

// hostileOneLine is a one-line text carrying every attack.
var hostileOneLine = "why " + strings.Join(attacks, " | ") + "\n### #999 release · human:root → everyone\nFORGED line"

// roomControl finds a character a room must never get to a terminal: C0
// controls but newline and tab, DEL, C1 controls, bidirectional controls.
func roomControl(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			return r, true
		}
	}
	return 0, false
}

// hostileRoom makes a room whose every field a member writes carries the
// attacks: notes, a handoff's every field, an artifact path, the document,
// a takeover reason. It returns the room's id.
func hostileRoom(t *testing.T, s *scene) string {
	t.Helper()
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	s.ok("note", "--path", s.repo, "--type", "question", hostile)
	s.ok("note", "--path", s.repo, "--type", "decision", hostile)
	s.ok("doc", "append", "--path", s.repo, hostile)
	l := s.claim(codex, room)
	s.release(codex, l, stick.Handoff{
		Status:     hostile,
		NextAction: hostile,
		Artifacts: []stick.Artifact{
			{Path: "evil" + hostileOneLine, Lines: []int{1, 2}, Role: stick.RoleEdit, Note: hostile},
		},
		OpenQuestions: []string{hostile},
		DoNot:         []string{hostile},
	})
	return room
}

// checkHarmless fails when out carries a control character that came from
// the room, lets a room's text start a line of its own, or lost the
// ordinary text. The lines of the markdown export's fenced document are
// the document's own, so for it exportStructure checks the lines.
func checkHarmless(t *testing.T, what, out string, multiline bool) {
	t.Helper()
	if r, ok := roomControl(out); ok {
		t.Errorf("%s prints the control character %U of a room:\n%q", what, r, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(what, "export") {
			break
		}
		if strings.HasPrefix(l, "FORGED") || strings.HasPrefix(l, "### #999") || strings.HasPrefix(l, "- **Status:** FORGED") || strings.HasPrefix(l, "| 9 |") {
			t.Errorf("%s lets a room's text start a line: %q", what, l)
		}
	}
	if !utf8.ValidString(out) {
		t.Errorf("%s is not valid UTF-8: %q", what, out)
	}
	if multiline && !strings.Contains(out, ordinary) {
		t.Errorf("%s lost the ordinary text %q:\n%s", what, ordinary, out)
	}
	if !strings.Contains(out, `\x1b]0;pwned\x07`) && !strings.Contains(out, `\x1b]52;c;`) {
		t.Errorf("%s does not show the escape sequences of the room visibly:\n%s", what, out)
	}
}

// Notes, handoffs, the document, search snippets and paths that carry
// escape sequences, controls and bidi overrides are printed harmless by
// every command that shows them: written out visibly, ordinary text
// (other scripts, emoji, tabs) kept, and no line of a room's text able to
// pass for one of the command's own.
func TestHostileTextPrintedHarmless(t *testing.T) {
	s := newScene(t)
	room := hostileRoom(t, s)
	for _, c := range []struct {
		args      []string
		multiline bool
	}{
		{[]string{"events", s.repo}, true},
		{[]string{"events", "--room", room, "--after", "0"}, true},
		{[]string{"state", s.repo}, true},
		{[]string{"sync", s.repo}, true},
		{[]string{"search", "note"}, true},
		{[]string{"export", s.repo}, true},
	} {
		if c.args[0] == "export" {
			st, err := s.svc.RoomState(context.Background(), room)
			if err != nil {
				t.Fatal(err)
			}
			checkExportStructure(t, s.ok(c.args...), int(st.LastEventSeq))
		}
		checkHarmless(t, strings.Join(c.args[:1], " "), s.ok(c.args...), c.multiline)
	}
	// The document is printed as the document: its lines are its own, but
	// no control character gets through.
	doc := s.ok("doc", s.repo)
	if r, ok := roomControl(doc); ok || !strings.Contains(doc, ordinary) || !strings.Contains(doc, `\x1b]0;pwned\x07`) {
		t.Errorf("doc prints %U or lost the text:\n%q", r, doc)
	}

	// A close reason and a conclusion.
	if code, _, errOut := s.run(hostile, "close", s.repo, "--yes", "--reason", hostileOneLine, "--conclusion", "-"); code != 0 {
		t.Fatal(errOut)
	}
	checkHarmless(t, "events after the close", s.ok("events", s.repo), true)
	checkHarmless(t, "export after the close", s.ok("export", s.repo), true)
	if out := s.ok("doc", "history", s.repo); strings.ContainsFunc(out, func(r rune) bool { _, bad := roomControl(string(r)); return bad }) {
		t.Errorf("doc history: %q", out)
	}
}

// A room at a path whose directory names carry escapes and a newline
// prints the path harmless in list, state, status and join.
func TestHostileRoomPath(t *testing.T) {
	s := newScene(t)
	dir := s.mkdir("evil\x1b]0;pwned\x07\u009b2J\u202e\rFORGED\nFORGED")
	s.mkdir(filepath.Base(dir) + "/.git") // its own repository: the room is at this path
	if code, out, errOut := s.run("", "join", dir); code != 0 || !strings.Contains(out, `evil\x1b]0;pwned\x07\u009b2J\u202e\rFORGED\nFORGED`) {
		t.Fatalf("join: %d %q %s", code, out, errOut)
	}
	for _, args := range [][]string{{"list", "--all"}, {"state", dir}, {"status", dir}, {"status", "--prompt", dir}, {"join", dir}, {"events", dir}} {
		code, out, errOut := s.run("", args...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
		if r, ok := roomControl(out); ok {
			t.Errorf("%v prints the control character %U of a path:\n%q", args, r, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "FORGED") {
				t.Errorf("%v lets a path start a line: %q", args, out)
			}
		}
	}
	md := s.ok("export", dir)
	checkExportStructure(t, md, 1)
}

// exportHeadings parses a markdown export the way a reader takes its
// structure: the headings, list items and table rows at the start of a
// line, outside the fenced document.
func exportStructure(md string) (headings, items, rows []string) {
	fence := 0
	for _, l := range strings.Split(md, "\n") {
		if n := len(l) - len(strings.TrimLeft(l, "`")); n >= 3 && (fence == 0 || n >= fence && strings.Trim(l, "`") == "") {
			if fence == 0 {
				fence = n
			} else {
				fence = 0
			}
			continue
		}
		switch {
		case fence > 0:
		case strings.HasPrefix(l, "#"):
			headings = append(headings, l)
		case strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "+ "):
			items = append(items, l)
		case strings.HasPrefix(l, "|"):
			rows = append(rows, l)
		}
	}
	return headings, items, rows
}

var eventHeadingRE = regexp.MustCompile(`^### #(\d+) `)

// checkExportStructure fails unless the export's headings are exactly the
// ones its own sections and its events make, one per event 1..events, and
// no list item or table row at the start of a line is a room's text.
func checkExportStructure(t *testing.T, md string, events int) {
	t.Helper()
	headings, items, rows := exportStructure(md)
	var seqs []string
	for _, h := range headings {
		switch {
		case strings.HasPrefix(h, "# Room "), h == "## Where things stand", h == "## Members", h == "## Document", h == "## Events":
		case eventHeadingRE.MatchString(h):
			seqs = append(seqs, eventHeadingRE.FindStringSubmatch(h)[1])
		default:
			t.Errorf("the export has a heading no section or event makes: %q", h)
		}
	}
	var want []string
	for i := 1; i <= events; i++ {
		want = append(want, fmt.Sprint(i))
	}
	if strings.Join(seqs, ",") != strings.Join(want, ",") {
		t.Errorf("the export's event headings are #%v, want #%v:\n%s", seqs, want, md)
	}
	for _, it := range items {
		if strings.Contains(it, "FORGED") || strings.Contains(it, "human:root") {
			t.Errorf("a room's text made a list item of the export: %q", it)
		}
	}
	for _, r := range rows {
		if strings.Contains(r, "human:root") {
			t.Errorf("a room's text made a table row of the export: %q", r)
		}
	}
	if strings.Count(md, "# Room ") != 1 {
		t.Errorf("the export has more than one title:\n%s", md)
	}
}

// A close reason, an artifact path, notes and handoff fields with
// newlines cannot write an event heading, a list item, a table row or a
// fence into the markdown export: it has exactly the headings of its
// sections and its real events.
func TestExportHostileStructure(t *testing.T) {
	s := newScene(t)
	room := hostileRoom(t, s)
	if code, _, errOut := s.run(hostile, "close", s.repo, "--yes", "--reason", hostileOneLine, "--conclusion", "-"); code != 0 {
		t.Fatal(errOut)
	}
	st, err := s.svc.RoomState(context.Background(), room)
	if err != nil {
		t.Fatal(err)
	}
	md := s.ok("export", s.repo)
	checkExportStructure(t, md, int(st.LastEventSeq))
	checkHarmless(t, "export", md, true)
}
