package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func TestGoldenDoc(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	tr.run("", "doc", s.repo)
	tr.table("doc", "history", s.repo)
	s.clock.Advance(time.Minute)
	tr.run("", "doc", "append", "--path", s.repo, "Plan:", "parser first,", "then the lexer.")
	s.clock.Advance(time.Minute)
	tr.run("", "doc", "append", "--path", s.repo, "--agent", "codex:1", "--section", "Decisions", "Keep the v1 flag until v2.")
	s.clock.Advance(time.Minute)
	tr.run("- a second decision\n- and a third\n", "doc", "append", "--path", s.repo, "--section", "## Decisions", "-")
	tr.run("", "doc", s.repo)
	tr.run("", "doc", s.repo, "--version", "1")
	tr.table("doc", "history", s.repo)
	tr.run("", "events", s.repo, "--after", "2")

	tr.run("", "doc", s.repo, "--version", "9")
	tr.run("", "doc", s.repo, "--version", "-1")
	tr.run("", "doc", s.repo, "--version", "x")
	tr.run("", "doc", "hsitory")
	tr.run("", "doc", "append", "--path", s.repo)
	tr.run("", "doc", "append", "--path", s.repo, " ")
	tr.run("", "doc", "append", "--path", s.repo, "--section", "##", "text")
	tr.run("", "doc", "append", "--path", s.repo, "--agent", "stranger", "hello")

	// Closing with a conclusion writes the Conclusion section; the document
	// stays readable and no longer writable.
	s.clock.Advance(time.Minute)
	tr.run("We chose the parser-first plan.\n", "close", s.repo, "--yes", "--conclusion", "-")
	tr.run("", "doc", s.repo)
	tr.table("doc", "history", s.repo)
	tr.run("", "doc", "append", "--path", s.repo, "too late")
	tr.check("doc")
}

// A closed room whose document was never written says so, and the history
// of an unwritten document is empty.
func TestDocEmptyAndClosed(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	code, out, errOut := s.run("", "doc", s.repo)
	if code != 0 || out != "" || !strings.Contains(errOut, "is empty; write it with 'stick doc edit' or add to it with 'stick doc append TEXT'") {
		t.Errorf("empty document: %d %q %q", code, out, errOut)
	}
	s.ok("close", s.repo, "--yes")
	code, out, errOut = s.run("", "doc", s.repo)
	if code != 0 || out != "" || !strings.Contains(errOut, "is closed and its document was never written") {
		t.Errorf("closed, never written: %d %q %q", code, out, errOut)
	}
	var versions []stick.DocVersion
	if out := s.ok("doc", "history", s.repo, "--json"); strings.TrimSpace(out) != "[]" || json.Unmarshal([]byte(out), &versions) != nil {
		t.Errorf("history of an unwritten document must be an empty array: %q", out)
	}
}

func TestJSONDoc(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)

	var d stick.Document
	s.decodeJSON(&d, "doc", s.repo)
	if d.RoomID != room || d.Version != 0 || d.Content != "" || d.Author != "" {
		t.Errorf("unwritten document: %+v", d)
	}

	s.clock.Advance(time.Minute)
	d = stick.Document{}
	s.decodeJSON(&d, "doc", "append", "--path", s.repo, "first")
	if d.RoomID != room || d.Version != 1 || d.Content != "first\n" || d.Author != "human:ana" || d.Op != stick.DocAppend || d.Size != 6 || d.EventSeq != 3 {
		t.Errorf("append: %+v", d)
	}
	checkTime(t, "append created_at", d.CreatedAt, goldenStart.Add(time.Minute))

	s.clock.Advance(time.Minute)
	d = stick.Document{}
	s.decodeJSON(&d, "doc", "append", "--path", s.repo, "--agent", "codex:1", "--section", "Decisions", "ship it")
	if d.Version != 2 || d.Content != "first\n\n## Decisions\n\nship it\n" || d.Author != "codex:1" {
		t.Errorf("append to a section: %+v", d)
	}

	d = stick.Document{}
	s.decodeJSON(&d, "doc", s.repo, "--version", "1")
	if d.Version != 1 || d.Content != "first\n" {
		t.Errorf("version 1: %+v", d)
	}
	d = stick.Document{}
	s.decodeJSON(&d, "doc", s.repo)
	if d.Version != 2 || d.Author != "codex:1" || !strings.Contains(d.Content, "ship it") {
		t.Errorf("current: %+v", d)
	}

	var versions []stick.DocVersion
	s.decodeJSON(&versions, "doc", "history", s.repo)
	if len(versions) != 2 || versions[0].Version != 1 || versions[0].Author != "human:ana" || versions[1].Version != 2 ||
		versions[1].Author != "codex:1" || versions[1].Op != stick.DocAppend || versions[1].EventSeq != 4 {
		t.Errorf("history: %+v", versions)
	}
	checkTime(t, "version 2 created_at", versions[1].CreatedAt, goldenStart.Add(2*time.Minute))

	// The log records each write as a doc event.
	var page stick.EventPage
	s.decodeJSON(&page, "events", s.repo, "--after", "2")
	if len(page.Events) != 2 || page.Events[1].Type != stick.EventDoc || page.Events[1].Text != "ship it" || page.Events[1].From != "codex:1" {
		t.Errorf("doc events: %+v", page.Events)
	}
	var data map[string]any
	if err := json.Unmarshal(page.Events[1].Data, &data); err != nil || data["version"] != 2.0 || data["section"] != "Decisions" || data["op"] != "append" {
		t.Errorf("doc event data: %v %v", err, data)
	}
}

// 'stick doc append' writes the room of the current directory without
// --path, and reads the text from standard input for "-".
func TestDocAppendFromCurrentDirectory(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	t.Chdir(s.mkdir("pkg"))
	if code, out, errOut := s.run("from stdin\n", "doc", "append", "-"); code != 0 || !strings.HasPrefix(out, "appended to the end of the document of room ") {
		t.Fatalf("append -: %d %q %q", code, out, errOut)
	}
	if out := s.ok("doc"); out != "from stdin\n" {
		t.Errorf("doc after append -: %q", out)
	}
	// A single word that is not "-" is the text itself.
	s.ok("doc", "append", "--section", "Notes", "word")
	if out := s.ok("doc"); out != "from stdin\n\n## Notes\n\nword\n" {
		t.Errorf("doc after a section append: %q", out)
	}
}

// The doc commands through the binary: a path that does not exist, a path
// outside any room, flags they do not have; nothing is written.
func TestBinaryDocErrors(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	var j stick.JoinResult
	if err := json.Unmarshal([]byte(b.ok(t, "join", "--json")), &j); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(b.repo, "no", "such", "dir")
	line := `stick: invalid_argument: path "` + missing + `" does not exist`
	hint := "pass an existing file or directory inside the workspace"
	for _, args := range [][]string{
		{"doc", missing}, {"doc", "history", missing}, {"doc", "edit", missing}, {"doc", "append", "--path", missing, "x"},
		{"export", missing},
	} {
		checkFailure(t, strings.Join(args, " "), b.run(t, args...), 2, line, hint)
	}
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(outside, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside, _ = filepath.EvalSymlinks(outside)
	for _, args := range [][]string{{"doc"}, {"doc", "history"}, {"doc", "edit"}, {"doc", "append", "x"}, {"export"}} {
		r := runBin(t, outside, b.env, args...)
		checkFailure(t, strings.Join(args, " ")+" outside", r, 1, "stick: room_not_found: no room for "+outside,
			"run 'stick join "+outside+"' to create or join the room of this workspace")
	}
	for _, tc := range []struct {
		args       []string
		code       int
		line, hint string
	}{
		{[]string{"doc", "--frobnicate"}, 2, "stick: unknown flag: --frobnicate", usage("doc")},
		{[]string{"doc", "edit", "--frobnicate"}, 2, "stick: unknown flag: --frobnicate", usage("doc edit")},
		{[]string{"doc", "edit", "--version", "3"}, 2, "stick: unknown flag: --version", usage("doc edit")},
		{[]string{"doc", "history", "--frobnicate"}, 2, "stick: unknown flag: --frobnicate", usage("doc history")},
		{[]string{"doc", "append"}, 2, "stick: 'stick doc append' needs TEXT, the words to append, or - to read them from standard input", usage("doc append")},
		{[]string{"doc", "append", "--section"}, 2, "stick: flag needs an argument: --section", usage("doc append")},
		{[]string{"doc", ".", "extra"}, 2, "stick: accepts at most 1 arg(s), received 2", usage("doc")},
		{[]string{"doc", "edti"}, 2, `stick: unknown command "edti" for "stick doc"; did you mean "edit"? (a path must exist)`, usage("doc")},
		{[]string{"doc", "--version", "2"}, 2, "stick: invalid_argument: room " + j.RoomID + "'s document has no version 2; its current version is 0",
			"list the versions with 'stick doc history'"},
	} {
		checkFailure(t, strings.Join(tc.args, " "), b.run(t, tc.args...), tc.code, tc.line, tc.hint)
	}
	var versions []stick.DocVersion
	if err := json.Unmarshal([]byte(b.ok(t, "doc", "history", "--json")), &versions); err != nil || len(versions) != 0 {
		t.Errorf("a failed command wrote the document: %v %+v", err, versions)
	}
}

// Concurrent appends from several processes never lose each other: every
// text is in the final document, each in its own version.
func TestBinaryDocConcurrentAppends(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join")
	const n = 6
	done := make(chan binResult, n)
	for i := range n {
		go func() {
			done <- runBin(t, b.repo, b.env, "doc", "append", "--section", "Log", "entry", string(rune('a'+i)))
		}()
	}
	for range n {
		if r := <-done; r.code != 0 {
			t.Fatalf("append: %+v", r)
		}
	}
	doc := b.ok(t, "doc")
	for i := range n {
		if !strings.Contains(doc, "entry "+string(rune('a'+i))+"\n") {
			t.Errorf("entry %c lost:\n%s", 'a'+i, doc)
		}
	}
	var versions []stick.DocVersion
	if err := json.Unmarshal([]byte(b.ok(t, "doc", "history", "--json")), &versions); err != nil || len(versions) != n {
		t.Errorf("history: %v %d versions", err, len(versions))
	}
}

// A closed room stays reachable by its id once a new room is open at its
// path: --room on doc, doc history, export, events and state; search
// --room takes a room id or a path.
func TestRoomFlagReachesClosedRoom(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	old := s.roomID(s.repo)
	s.ok("doc", "append", "--path", s.repo, "old plan")
	s.ok("close", s.repo, "--yes", "--reason", "v1 shipped")
	s.join("human:ana", s.repo, false)
	cur := s.roomID(s.repo)
	if cur == old {
		t.Fatal("join after close did not start a new room")
	}
	s.ok("doc", "append", "--path", s.repo, "new plan")

	if out := s.ok("doc", s.repo); out != "new plan\n" {
		t.Errorf("doc of the path: %q", out)
	}
	if out := s.ok("doc", "--room", old); out != "old plan\n" {
		t.Errorf("doc --room: %q", out)
	}
	var versions []stick.DocVersion
	s.decodeJSON(&versions, "doc", "history", "--room", old)
	if len(versions) != 1 || versions[0].RoomID != old {
		t.Errorf("doc history --room: %+v", versions)
	}
	var tr stick.Transcript
	s.decodeJSON(&tr, "export", "--room", old)
	if tr.Room.RoomID != old || tr.Room.State != stick.StateClosed || tr.Document.Content != "old plan\n" {
		t.Errorf("export --room: %+v", tr.Room)
	}
	if md := s.ok("export", "--room", old); !strings.Contains(md, "Room `"+old+"`") {
		t.Errorf("export --room, markdown:\n%s", md)
	}
	var page stick.EventPage
	s.decodeJSON(&page, "events", "--room", old)
	if len(page.Events) == 0 || page.Events[len(page.Events)-1].Type != stick.EventClose {
		t.Errorf("events --room: %+v", page.Events)
	}
	out := s.ok("events", "--room", old, "--after", "0", "--limit", "1")
	if want := "more: stick events --room " + old + " --after "; !strings.Contains(out, want) {
		t.Errorf("events --room --limit 1 must say how to read on in the same room (%q):\n%s", want, out)
	}
	var st stick.RoomStatus
	s.decodeJSON(&st, "state", "--room", old)
	if st.RoomID != old || st.State != stick.StateClosed {
		t.Errorf("state --room: %+v", st)
	}

	var hits []stick.SearchHit
	s.decodeJSON(&hits, "search", "plan", "--room", old)
	if len(hits) != 1 || hits[0].RoomID != old {
		t.Errorf("search --room ROOM_ID: %+v", hits)
	}
	hits = nil
	s.decodeJSON(&hits, "search", "plan", "--room", s.repo)
	if len(hits) != 1 || hits[0].RoomID != cur {
		t.Errorf("search --room PATH: %+v", hits)
	}
	t.Chdir(s.repo)
	hits = nil
	s.decodeJSON(&hits, "search", "plan", "--room", ".")
	if len(hits) != 1 || hits[0].RoomID != cur {
		t.Errorf("search --room .: %+v", hits)
	}

	for _, tc := range []struct {
		args   []string
		code   int
		errOut string
	}{
		{[]string{"doc", s.repo, "--room", old}, 2, "stick: give either a path or --room, not both (--room " + old + " already names the room)\nhint: run 'stick doc --help' for usage\n"},
		{[]string{"export", ".", "--room", old}, 2, "stick: give either a path or --room, not both (--room " + old + " already names the room)\nhint: run 'stick export --help' for usage\n"},
		{[]string{"doc", "history", "--room", ""}, 2, "stick: --room needs a room id, as 'stick list' shows it (or a path)\nhint: run 'stick doc history --help' for usage\n"},
		{[]string{"search", "plan", "--room", " "}, 2, "stick: --room needs a room id, as 'stick list' shows it (or a path)\nhint: run 'stick search --help' for usage\n"},
		{[]string{"state", "--room", "room_0000000000000000"}, 1, "stick: room_not_found: no room has room_id \"room_0000000000000000\"\nhint: call 'stick list' or 'stick join' to find the room for your path\n"},
	} {
		if code, out, errOut := s.run("", tc.args...); code != tc.code || out != "" || errOut != tc.errOut {
			t.Errorf("stick %s: exit %d, %q\n%s\nwant exit %d:\n%s", strings.Join(tc.args, " "), code, out, errOut, tc.code, tc.errOut)
		}
	}
}
