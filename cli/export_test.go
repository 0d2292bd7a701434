package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// exportScene is a room with a bit of everything, a minute between steps:
// joins, a claim and a release with sampleHandoff, a question and its
// answer, document appends and an update, a member who leaves, a policy
// change, and a close with a conclusion. It returns the room's id.
func exportScene(s *scene) string {
	s.t.Helper()
	ctx := context.Background()
	step := func() { s.clock.Advance(time.Minute) }
	s.join("human:ana", s.repo, false)
	step()
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	step()
	l := s.claim(codex, room)
	step()
	s.release(codex, l, sampleHandoff)
	step()
	s.ok("note", "--path", s.repo, "--type", "question", "keep the old syntax?")
	step()
	s.ok("note", "--path", s.repo, "--agent", "codex:1", "--type", "answer", "--reply-to", "5", "--id", "a-1", "--metadata", `{"pr": 42}`, "yes, until v2")
	step()
	s.ok("doc", "append", "--path", s.repo, "# Parser plan\n\nParse first, then lex.")
	step()
	s.ok("doc", "append", "--path", s.repo, "--agent", "codex:1", "--section", "Decisions", "Keep the old syntax until v2.")
	step()
	cur, err := s.svc.ReadDoc(ctx, room, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.svc.UpdateDoc(ctx, stick.Caller{AgentID: "human:ana", Kind: stick.KindOneShot}, room,
		strings.Replace(cur.Content, "Parse first", "Parse first (```go fences``` included)", 1), cur.Version); err != nil {
		s.t.Fatal(err)
	}
	step()
	s.join("gemini:1", s.repo, false)
	step()
	s.ok("leave", s.repo, "--agent", "gemini:1")
	step()
	s.ok("policy", s.repo, "--lease", "10m")
	step()
	if code, _, errOut := s.run("We keep the old syntax until v2.\n", "close", s.repo, "--yes", "--reason", "v1 shipped", "--conclusion", "-"); code != 0 {
		s.t.Fatal(errOut)
	}
	step()
	return room
}

func TestGoldenExport(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	exportScene(s)
	tr.run("", "export", s.repo)
	tr.run("", "export", s.repo, "--after", "9")
	tr.run("", "export", s.repo, "--after", "13")
	tr.run("", "export", s.repo, "--after", "99")
	tr.run("", "export", s.repo, "--format", "yaml")
	tr.run("", "export", s.repo, "--after", "-1")
	tr.run("", "export", s.repo, "--after", "x")
	tr.check("export")
}

// The JSON export is the transcript the library returns, field for field;
// the markdown carries every handoff field, every event and the document;
// --after drops the earlier events; -o writes a file.
func TestExportRoundTrip(t *testing.T) {
	s := newScene(t)
	room := exportScene(s)
	want, err := s.svc.Transcript(context.Background(), room, 0)
	if err != nil {
		t.Fatal(err)
	}

	out := s.ok("export", s.repo, "--format", "json")
	var got stick.Transcript
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("export --format json: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "{\n  \"room\": {\n") {
		t.Errorf("the JSON export must be pretty-printed: %.40q", out)
	}
	// Equal as JSON (times compare by instant, not by location), and in the parts that matter, as values.
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("export --format json differs from Service.Transcript:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if len(got.Events) != len(want.Events) || len(got.Events) != 13 || got.After != 0 {
		t.Fatalf("events: %d, want %d", len(got.Events), len(want.Events))
	}
	for i, e := range got.Events {
		w := want.Events[i]
		if e.Seq != w.Seq || e.Type != w.Type || e.From != w.From || e.To != w.To || e.Text != w.Text || e.Ref != w.Ref ||
			e.MessageType != w.MessageType || !e.CreatedAt.Equal(w.CreatedAt) || !reflect.DeepEqual(e.Handoff, w.Handoff) {
			t.Errorf("event %d: got %+v, want %+v", i, e, w)
		}
	}
	if h := got.Events[3].Handoff; h == nil || !reflect.DeepEqual(*h, sampleHandoff) {
		t.Errorf("the release's handoff: %+v", h)
	}
	if len(got.Room.Members) != 2 || got.Room.Members[0].AgentID != "human:ana" || got.Room.Members[1].AgentID != "codex:1" ||
		got.Room.State != stick.StateClosed {
		t.Errorf("room: %+v", got.Room)
	}
	if got.Document.Version != 4 || got.Document.Op != stick.DocConclusion || got.Document.Content != want.Document.Content ||
		!strings.Contains(got.Document.Content, "## Conclusion\n\nWe keep the old syntax until v2.\n") {
		t.Errorf("document: %+v", got.Document)
	}
	if strings.Contains(out, "reclaim") || strings.Contains(out, "rt_") {
		t.Errorf("the export must not carry reclaim tokens:\n%s", out)
	}

	md := s.ok("export", s.repo)
	for _, want := range []string{
		"# Room " + s.repo + "\n", "Room `" + room + "`",
		"- **Status:**\n\n  > parser done\n  > lexer untouched\n", "- **Next action:** add tests for the error path\n",
		"  - `parse.go:3-9` (edit): error path\n", "  - `README.md` (context)\n",
		"- **Open questions:**\n  - keep the old syntax?\n", "- **Do not:**\n  - touch the generated files\n",
		"### #5 note (question) · human:ana\n", "### #6 note (answer, reply to #5) · codex:1\n", "> yes, until v2\n",
		"**Sender's id:** `a-1`", "**Metadata:** `{\"pr\": 42}`",
		"### #4 release · codex:1 → human:ana\n", "### #11 leave · gemini:1\n\n2025-06-11 09:36:53 · turn 1 · the stick is reserved for human:ana now\n", "**Reason:** v1 shipped\n",
		"**Conclusion:**\n\n> We keep the old syntax until v2.\n", "doc v2, append to Decisions", "**Appended:**\n\n> Keep the old syntax until v2.\n",
		"| 1 | human:ana | away |", "````markdown\n" + want.Document.Content + "````\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown export lacks %q:\n%s", want, md)
		}
	}
	for _, e := range want.Events {
		if !strings.Contains(md, "\n### #"+strconv.FormatInt(e.Seq, 10)+" "+string(e.Type)) {
			t.Errorf("the markdown export lacks event #%d", e.Seq)
		}
	}

	// --after 9 keeps events 10 and later, and says so.
	var after stick.Transcript
	s.decodeJSONAs(&after, "export", s.repo, "--format", "json", "--after", "9")
	if after.After != 9 || len(after.Events) != 4 || after.Events[0].Seq != 10 {
		t.Errorf("--after 9: after %d, %d events", after.After, len(after.Events))
	}
	md = s.ok("export", s.repo, "--after", "9")
	if strings.Contains(md, "### #9 ") || !strings.Contains(md, "### #10 ") || !strings.Contains(md, "Only the events after #9 are included") {
		t.Errorf("markdown --after 9:\n%s", md)
	}

	// -o writes the same bytes to a file and says where.
	file := filepath.Join(t.TempDir(), "room.md")
	if out := s.ok("export", s.repo, "-o", file); out != "exported room "+room+" (13 events, document version 4) to "+file+"\n" {
		t.Errorf("export -o: %q", out)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != s.ok("export", s.repo) {
		t.Errorf("the exported file differs from standard output: %v", err)
	}
	code, out, errOut := s.run("", "export", s.repo, "-o", filepath.Join(t.TempDir(), "no", "dir", "room.md"))
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "stick: cannot write the export to ") || !strings.Contains(errOut, "\nhint: give -o a file in a writable directory") {
		t.Errorf("export -o into a missing directory: %d %q %q", code, out, errOut)
	}
}

// decodeJSONAs runs a command that prints JSON without a --json flag and
// decodes its output into v.
func (s *scene) decodeJSONAs(v any, args ...string) {
	s.t.Helper()
	out := s.ok(args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		s.t.Fatalf("stick %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Through the binary, from the workspace without a path: markdown by
// default, JSON on request; bad flags are usage errors.
func TestBinaryExport(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join")
	b.ok(t, "doc", "append", "the plan")
	md := b.ok(t, "export")
	if !strings.HasPrefix(md, "# Room "+b.repo+"\n") || !strings.Contains(md, "```markdown\nthe plan\n```\n") || !strings.Contains(md, "### #2 doc · human:ana\n") {
		t.Errorf("export:\n%s", md)
	}
	var tr stick.Transcript
	if err := json.Unmarshal([]byte(b.ok(t, "export", "--format", "json")), &tr); err != nil || len(tr.Events) != 2 || tr.Document.Content != "the plan\n" {
		t.Errorf("export --format json: %v %+v", err, tr)
	}
	checkFailure(t, "export --frobnicate", b.run(t, "export", "--frobnicate"), 2, "stick: unknown flag: --frobnicate", usage("export"))
	checkFailure(t, "export --format html", b.run(t, "export", "--format", "html"), 2, `stick: --format must be markdown or json, not "html"`, usage("export"))
	checkFailure(t, "export --json --format markdown", b.run(t, "export", "--json", "--format", "markdown"), 2,
		"stick: --json and --format markdown ask for different formats; give one of them", usage("export"))
	checkFailure(t, "export . extra", b.run(t, "export", ".", "extra"), 2, "stick: accepts at most 1 arg(s), received 2", usage("export"))
}

// --json is --format json, as every command that prints data takes it.
func TestExportJSONFlag(t *testing.T) {
	s := newScene(t)
	exportScene(s)
	want := s.ok("export", s.repo, "--format", "json")
	for _, args := range [][]string{{"--json"}, {"--json", "--format", "json"}, {"--format", "json", "--json"}} {
		if got := s.ok(append([]string{"export", s.repo}, args...)...); got != want {
			t.Errorf("export %v differs from export --format json:\n%s", args, got)
		}
	}
	file := filepath.Join(t.TempDir(), "room.json")
	s.ok("export", s.repo, "--json", "-o", file)
	if b, err := os.ReadFile(file); err != nil || string(b) != want {
		t.Errorf("export --json -o: %v", err)
	}
	for _, args := range [][]string{{"--json", "--format", "markdown"}, {"--format", "markdown", "--json"}} {
		code, out, errOut := s.run("", append([]string{"export", s.repo}, args...)...)
		if code != 2 || out != "" || errOut != "stick: --json and --format markdown ask for different formats; give one of them\nhint: run 'stick export --help' for usage\n" {
			t.Errorf("export %v: exit %d, %q, %q", args, code, out, errOut)
		}
	}
}
