//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// editorScript writes an executable shell script to dir and returns its path.
func editorScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// blockingEditor is an editor that adds a line to the file, says so on a
// fifo and waits on another until the test releases it, so a test can act
// while the edit is open.
type blockingEditor struct {
	t                      *testing.T
	command                string // the value for $EDITOR
	readyFifo, releaseFifo string
}

// newBlockingEditor makes one; name keeps the fifos of several apart, line
// is what it adds (a double-quoted argument of the command, spaces and all).
func newBlockingEditor(t *testing.T, dir, name, line string) *blockingEditor {
	t.Helper()
	script := filepath.Join(dir, "block.sh")
	if _, err := os.Stat(script); err != nil {
		editorScript(t, dir, "block.sh", "printf '%s\\n' \"$3\" >> \"$4\"\necho ready > \"$1\"\nread line < \"$2\"\n")
	}
	e := &blockingEditor{t: t, readyFifo: filepath.Join(dir, name+".ready"), releaseFifo: filepath.Join(dir, name+".release")}
	for _, f := range []string{e.readyFifo, e.releaseFifo} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e.command = "sh '" + script + "' " + e.readyFifo + " " + e.releaseFifo + ` "` + line + `"`
	return e
}

// fifoDeadline bounds each wait on an editor; it is a failure, not a delay.
const fifoDeadline = 30 * time.Second

// ready waits until the editor has edited the file and is waiting.
func (e *blockingEditor) ready() {
	e.t.Helper()
	e.within("start", func() error {
		f, err := os.Open(e.readyFifo) // blocks until the editor opens it to write
		if err == nil {
			_, err = bufio.NewReader(f).ReadString('\n')
			f.Close()
		}
		return err
	})
}

// release lets the editor exit (successfully).
func (e *blockingEditor) release() {
	e.t.Helper()
	e.within("wait to be released", func() error {
		f, err := os.OpenFile(e.releaseFifo, os.O_WRONLY, 0) // blocks until the editor reads
		if err == nil {
			_, err = f.WriteString("go\n")
			f.Close()
		}
		return err
	})
}

// within runs fn, a wait on one of the editor's fifos, and fails the test
// if it fails or the editor did not do what (start, ...) within
// fifoDeadline.
func (e *blockingEditor) within(what string, fn func() error) {
	e.t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		if err != nil {
			e.t.Fatalf("the editor did not %s: %v", what, err)
		}
	case <-time.After(fifoDeadline):
		e.t.Fatalf("the editor did not %s within %v", what, fifoDeadline)
	}
}

// keptFileRE finds the file 'stick doc edit' keeps an unsaved edit in.
var keptFileRE = regexp.MustCompile(`/\S*stick-doc-room_[0-9a-f]+-v\d+-\d+\.md`)

func TestGoldenDocEdit(t *testing.T) {
	s := newScene(t)
	tr := &transcript{s: s}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	scripts := t.TempDir()
	env := map[string]string{"USER": "ana"}
	fakeEnv(t, env)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)
	s.ok("doc", "append", "--path", s.repo, "Plan: the parser first.\n\n## Decisions\n\nnone yet")

	env["EDITOR"] = editorScript(t, scripts, "upper.sh", "sed -i.bak 's/parser/PARSER/' \"$1\" && rm -f \"$1.bak\"\n")
	s.clock.Advance(time.Minute)
	tr.run("", "doc", "edit", s.repo)
	env["EDITOR"] = "true"
	tr.run("", "doc", "edit", s.repo)
	env["VISUAL"], env["EDITOR"] = "false", editorScript(t, scripts, "never.sh", "exit 0\n")
	tr.run("", "doc", "edit", s.repo)
	delete(env, "VISUAL")
	env["EDITOR"] = "no-such-editor-here --wait"
	tr.run("", "doc", "edit", s.repo)
	env["EDITOR"] = "'open"
	tr.run("", "doc", "edit", s.repo)

	// codex:1 appends while ana's edit is open: ana's save is refused, her
	// text kept, codex:1's change shown.
	ed := newBlockingEditor(t, scripts, "ana", "ana's line")
	env["EDITOR"] = ed.command
	args := []string{"doc", "edit", s.repo}
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := s.run("", args...)
		done <- result{code, out, errOut}
	}()
	ed.ready()
	s.clock.Advance(time.Minute)
	if _, err := s.svc.AppendDoc(context.Background(), stick.Caller{AgentID: "codex:1", Kind: stick.KindOneShot}, room, "codex's decision", "Decisions"); err != nil {
		t.Fatal(err)
	}
	ed.release()
	r := <-done
	kept := keptFileRE.FindString(r.errOut)
	if kept == "" {
		t.Fatalf("no kept file named: %q", r.errOut)
	}
	s.name(s.normalise(kept), "<kept file>")
	tr.record("", append(args, "# codex:1 appends while the editor is open"), r.code, s.normalise(r.out), r.errOut)
	if b, err := os.ReadFile(kept); err != nil || string(b) != "Plan: the PARSER first.\n\n## Decisions\n\nnone yet\nana's line\n" {
		t.Errorf("kept file: %v %q", err, b)
	}
	tr.run("", "doc", "history", s.repo)

	// An editor that saves an empty or blank file aborts the edit: nothing
	// saved, nothing kept; --allow-empty saves the empty document.
	env["EDITOR"] = editorScript(t, scripts, "empty.sh", ": > \"$1\"\n")
	tr.run("", "doc", "edit", s.repo)
	env["EDITOR"] = editorScript(t, scripts, "blank.sh", "printf '\\n  \\n' > \"$1\"\n")
	tr.run("", "doc", "edit", s.repo, "--agent", "codex:1")
	env["EDITOR"] = editorScript(t, scripts, "empty.sh", ": > \"$1\"\n")
	tr.run("", "doc", "edit", s.repo, "--allow-empty")
	tr.run("", "doc", s.repo)

	// Not a member: refused before the editor runs.
	marker := filepath.Join(scripts, "ran")
	env["EDITOR"] = editorScript(t, scripts, "mark.sh", "touch '"+marker+"'\n")
	tr.run("", "doc", "edit", s.repo, "--agent", "stranger")
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the editor ran for a caller who may not write: %v", err)
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 {
		t.Errorf("only the conflict's kept file may stay in $TMPDIR: %v", entries)
	}
	tr.check("docedit")
}

// --json: the outcome, the version, and for a conflict everything the text
// says, on standard output.
func TestJSONDocEdit(t *testing.T) {
	s := newScene(t)
	t.Setenv("TMPDIR", t.TempDir())
	scripts := t.TempDir()
	env := map[string]string{"USER": "ana"}
	fakeEnv(t, env)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	room := s.roomID(s.repo)

	// An editor that prints something must not spoil the JSON.
	env["EDITOR"] = editorScript(t, scripts, "write.sh", "echo 'editor chatter'\nprintf 'first draft\\n' > \"$1\"\n")
	var e docEdit
	s.decodeJSON(&e, "doc", "edit", s.repo)
	if e.RoomID != room || e.Outcome != "saved" || e.StartedFrom != 0 || e.Document.Version != 1 || e.Document.Author != "human:ana" ||
		e.Document.Op != stick.DocUpdate || e.Document.Size != 12 || e.KeptFile != "" || e.Error != nil {
		t.Errorf("saved: %+v", e)
	}
	env["EDITOR"] = "true"
	e = docEdit{}
	s.decodeJSON(&e, "doc", "edit", s.repo)
	if e.Outcome != "unchanged" || e.StartedFrom != 1 || e.Document.Version != 1 {
		t.Errorf("unchanged: %+v", e)
	}

	ed := newBlockingEditor(t, scripts, "ana", "more")
	env["EDITOR"] = ed.command
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := s.run("", "doc", "edit", s.repo, "--json")
		done <- result{code, out, errOut}
	}()
	ed.ready()
	s.clock.Advance(time.Minute)
	codex1 := stick.Caller{AgentID: "codex:1", Kind: stick.KindOneShot}
	if _, err := s.svc.UpdateDoc(context.Background(), codex1, room, "first draft, reworded\n", 1); err != nil {
		t.Fatal(err)
	}
	ed.release()
	r := <-done
	e = docEdit{}
	if err := json.Unmarshal([]byte(r.out), &e); err != nil || r.code != exitConflict {
		t.Fatalf("conflict --json: exit %d, %v\n%s\n%s", r.code, err, r.out, r.errOut)
	}
	if e.Outcome != "conflict" || e.StartedFrom != 1 || e.Document.Version != 2 || e.Document.Author != "codex:1" ||
		len(e.Meanwhile) != 1 || e.Meanwhile[0].Version != 2 || e.Error == nil || e.Error.Code != stick.CodeVersionConflict ||
		e.Error.Details["current_version"] != 2.0 {
		t.Errorf("conflict: %+v", e)
	}
	wantDiff := "--- version 1 (your edit started here)\n+++ version 2 (current)\n@@ -1 +1 @@\n-first draft\n+first draft, reworded\n"
	if e.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", e.Diff, wantDiff)
	}
	if b, err := os.ReadFile(e.KeptFile); err != nil || string(b) != "first draft\nmore\n" {
		t.Errorf("kept file %s: %v %q", e.KeptFile, err, b)
	}
	// Standard error has the error and its hint, as for every failure, and
	// not the report the JSON already holds.
	wantErr := "stick: version_conflict: the document changed while you edited it: your edit started from version 1, and it is now at version 2; nothing was saved\n" +
		"hint: " + e.Error.Hint + "\n"
	if r.errOut != wantErr {
		t.Errorf("conflict --json, stderr:\n%s\nwant:\n%s", r.errOut, wantErr)
	}
	wantHint := "run 'stick doc edit " + s.repo + "' again and re-apply your change from " + e.KeptFile +
		" ('stick doc " + s.repo + " --version 1 | diff -u - " + e.KeptFile + "' shows your change)"
	if e.Error.Hint != wantHint {
		t.Errorf("conflict --json, hint:\n%s\nwant:\n%s", e.Error.Hint, wantHint)
	}
}

// The commands a failed edit suggests name the room and the member it
// edited as, so they work from any directory: the path argument made
// absolute and quoted for a shell, and --agent.
func TestDocEditHintsNameTheRoom(t *testing.T) {
	s := newScene(t)
	t.Setenv("TMPDIR", t.TempDir())
	env := map[string]string{"USER": "ana"}
	fakeEnv(t, env)
	app := s.mkdir("my app")
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	s.ok("doc", "append", "--path", s.repo, "the plan")
	t.Chdir(s.repo)

	env["VISUAL"] = "false"
	code, out, errOut := s.run("", "doc", "edit", "my app", "--agent", "codex:1")
	want := "stick: the editor \"false\" (from $VISUAL) ended with exit status 1; nothing was saved\n" +
		"hint: an edit is saved only when the editor exits successfully (in vi, :wq); run 'stick doc edit \"" + app + "\" --agent codex:1' again\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("editor failed: exit %d, %q\n%s\nwant:\n%s", code, out, errOut, want)
	}
	env["VISUAL"] = editorScript(t, t.TempDir(), "empty.sh", ": > \"$1\"\n")
	code, _, errOut = s.run("", "doc", "edit", "my app")
	if want := "hint: to empty the document, run 'stick doc edit \"" + app + "\" --allow-empty' and save an empty file\n"; code != 1 || !strings.HasSuffix(errOut, want) {
		t.Errorf("empty file: exit %d\n%s\nwant the hint:\n%s", code, errOut, want)
	}
	if doc := s.ok("doc"); doc != "the plan\n" {
		t.Errorf("an aborted edit changed the document: %q", doc)
	}

	for in, want := range map[string]string{
		"/src/app":         "/src/app",
		"/src/my app":      `"/src/my app"`,
		"/src/it's":        `"/src/it's"`,
		`/src/a "b" $HOME`: `'/src/a "b" $HOME'`,
		"/src/wow!":        `'/src/wow!'`,
	} {
		if got := hintQuote(in); got != want {
			t.Errorf("hintQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// An editor that saves an empty file leaves the document as it was, and
// the command says why; with --allow-empty the document is emptied.
func TestJSONDocEditEmpty(t *testing.T) {
	s := newScene(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	env := map[string]string{"USER": "ana"}
	fakeEnv(t, env)
	s.join("human:ana", s.repo, false)
	s.ok("doc", "append", "--path", s.repo, "the plan")
	env["EDITOR"] = editorScript(t, t.TempDir(), "empty.sh", ": > \"$1\"\n")
	code, out, errOut := s.run("", "doc", "edit", s.repo, "--json")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "stick: the edited file is empty, so the edit was aborted: nothing was saved") {
		t.Errorf("empty file --json: exit %d, %q, %q", code, out, errOut)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("an aborted empty edit left files behind: %v", entries)
	}
	// An editor that fails after emptying the file keeps nothing either.
	env["EDITOR"] = editorScript(t, t.TempDir(), "empty-fail.sh", ": > \"$1\"\nexit 1\n")
	code, out, errOut = s.run("", "doc", "edit", s.repo)
	if code != 1 || out != "" || strings.Contains(errOut, "kept") {
		t.Errorf("emptied, then failed: exit %d, %q, %q", code, out, errOut)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("a failed edit that emptied the file left it behind: %v", entries)
	}
	env["EDITOR"] = editorScript(t, t.TempDir(), "empty.sh", ": > \"$1\"\n")
	var e docEdit
	s.decodeJSON(&e, "doc", "edit", s.repo, "--allow-empty")
	if e.Outcome != "saved" || e.StartedFrom != 1 || e.Document.Version != 2 || e.Document.Size != 0 {
		t.Errorf("--allow-empty: %+v", e)
	}
	var d stick.Document
	s.decodeJSON(&d, "doc", s.repo)
	if d.Version != 2 || d.Content != "" {
		t.Errorf("the document after --allow-empty: %+v", d)
	}
}

// Without $VISUAL and $EDITOR the default editor runs, and a failure says
// so in one pair of parentheses.
func TestDocEditDefaultEditor(t *testing.T) {
	s := newScene(t)
	t.Setenv("TMPDIR", t.TempDir())
	s.join("human:ana", s.repo, false)
	t.Setenv("PATH", t.TempDir()) // no vi on it
	code, _, errOut := s.run("", "doc", "edit", s.repo)
	want := "stick: cannot run the editor \"vi\" (the default, as neither $VISUAL nor $EDITOR is set): " +
		"exec: \"vi\": executable file not found in $PATH; nothing was saved\n"
	if code != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("default editor: exit %d\n%s\nwant it to begin:\n%s", code, errOut, want)
	}
}

// Two 'stick doc edit' processes start from the same version and their
// editors stay open until the test lets them go: the first saves; the
// second saves nothing, keeps its user's text, names the first writer and
// shows their change as a diff, and exits 5.
func TestBinaryDocEditConflict(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join")
	b.ok(t, "join", "--agent", "codex:1")
	b.ok(t, "doc", "append", "# Plan\n\n- parse\n- lex\n- emit")
	tmp := t.TempDir()
	scripts := t.TempDir()

	start := func(agent string, ed *blockingEditor) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
		cmd := exec.Command(stickBin, "doc", "edit", "--agent", agent)
		cmd.Dir = b.repo
		cmd.Env = append(os.Environ(), append(b.env, "TMPDIR="+tmp, "EDITOR="+ed.command, "VISUAL=")...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the editor too, for the cleanup
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				// The editor holds the output pipes too: kill it with stick,
				// or Wait waits for it.
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				cmd.Wait()
			}
		})
		return cmd, &out, &errb
	}
	edAna := newBlockingEditor(t, scripts, "ana", "- test (ana)")
	edCodex := newBlockingEditor(t, scripts, "codex", "- ship (codex)")
	anaCmd, anaOut, anaErr := start("human:ana", edAna)
	codexCmd, codexOut, codexErr := start("codex:1", edCodex)
	edAna.ready()
	edCodex.ready() // both editors are open on version 1

	edAna.release()
	if err := anaCmd.Wait(); err != nil || anaErr.Len() != 0 || !strings.HasPrefix(anaOut.String(), "saved version 2 of the document of room ") {
		t.Fatalf("first edit: %v\n%s%s", err, anaOut, anaErr)
	}
	edCodex.release()
	err := codexCmd.Wait()
	if code := codexCmd.ProcessState.ExitCode(); code != exitConflict || codexOut.Len() != 0 {
		t.Fatalf("second edit: %v, exit %d, stdout %q\n%s", err, code, codexOut, codexErr)
	}
	stderr := codexErr.String()
	kept := keptFileRE.FindString(stderr)
	for _, want := range []string{
		"stick: version_conflict: the document changed while you edited it: your edit started from version 1, and it is now at version 2; nothing was saved\n",
		"your text is kept in " + kept + "\n",
		"saved meanwhile:\n  version 2 by human:ana at ",
		"their change, version 1 to 2:\n--- version 1 (your edit started here)\n+++ version 2 (current)\n@@ -3,3 +3,4 @@\n - parse\n - lex\n - emit\n+- test (ana)\n",
		"hint: run 'stick doc edit --agent codex:1' again and re-apply your change from " + kept,
	} {
		if kept == "" || !strings.Contains(stderr, want) {
			t.Errorf("the conflict report lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.HasSuffix(stderr, "shows your change)\n") {
		t.Errorf("the hint must come last:\n%s", stderr)
	}
	if got, err := os.ReadFile(kept); err != nil || string(got) != "# Plan\n\n- parse\n- lex\n- emit\n- ship (codex)\n" {
		t.Errorf("kept file: %v %q", err, got)
	}
	if doc := b.ok(t, "doc"); doc != "# Plan\n\n- parse\n- lex\n- emit\n- test (ana)\n" {
		t.Errorf("the document after the conflict: %q", doc)
	}
	var versions []stick.DocVersion
	if err := json.Unmarshal([]byte(b.ok(t, "doc", "history", "--json")), &versions); err != nil || len(versions) != 2 || versions[1].Author != "human:ana" {
		t.Errorf("the losing edit wrote something: %v %+v", err, versions)
	}
	var page stick.EventPage
	if err := json.Unmarshal([]byte(b.ok(t, "events", "--json")), &page); err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Events {
		if e.Type == stick.EventDoc && e.From == "codex:1" {
			t.Errorf("the losing edit logged a doc event: %+v", e)
		}
	}
	// Retrying from the kept file, as the hint says, succeeds.
	fix := editorScript(t, scripts, "retry.sh", "printf '%s\\n' '- ship (codex)' >> \"$1\"\n")
	r := runBin(t, b.repo, append(b.env, "TMPDIR="+tmp, "EDITOR="+fix, "VISUAL="), "doc", "edit", "--agent", "codex:1")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "saved version 3 ") {
		t.Fatalf("retry: %+v", r)
	}
}

// The commands a conflict's hint suggests work when pasted into a shell in
// another directory: the diff shows the user's own change, and the edit
// reaches the same room.
func TestBinaryDocEditConflictHintWorksElsewhere(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join")
	b.ok(t, "join", "--agent", "codex:1")
	b.ok(t, "doc", "append", "# Plan\n\n- parse")
	if err := os.Mkdir(filepath.Join(b.repo, "my app"), 0o755); err != nil {
		t.Fatal(err)
	}
	scripts := t.TempDir()
	env := append(b.env, "TMPDIR="+t.TempDir(), "VISUAL=", "PATH="+filepath.Dir(stickBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	ed := newBlockingEditor(t, scripts, "ana", "- lex (ana)")
	cmd := exec.Command(stickBin, "doc", "edit", "my app")
	cmd.Dir = b.repo
	cmd.Env = append(os.Environ(), append(env, "EDITOR="+ed.command)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the editor too, for the cleanup
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		}
	})
	ed.ready()
	b.ok(t, "doc", "append", "--agent", "codex:1", "emit (codex)")
	ed.release()
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitConflict {
		t.Fatalf("edit: exit %d\n%s", code, errb.String())
	}
	hint := errb.String()[strings.LastIndex(errb.String(), "\nhint: ")+1:]
	m := regexp.MustCompile(`^hint: run '([^']+)' again and re-apply your change from \S+ \('([^']+)' shows your change\)\n$`).FindStringSubmatch(hint)
	if m == nil {
		t.Fatalf("the hint does not name two commands: %q", hint)
	}
	again, diff := m[1], m[2]
	if want := `stick doc edit "` + b.repo + `/my app"`; again != want {
		t.Errorf("the edit command: %s, want %s", again, want)
	}

	elsewhere := t.TempDir()
	sh := func(line string, extra ...string) binResult {
		c := exec.Command("sh", "-c", line)
		c.Dir = elsewhere
		c.Env = append(os.Environ(), append(env, extra...)...)
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		c.Run()
		return binResult{code: c.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	}
	r := sh(diff)
	if r.code != 1 || !strings.Contains(r.stdout, "\n+- lex (ana)\n") || strings.Contains(r.stdout, "codex") || r.stderr != "" {
		t.Errorf("%s, run elsewhere: %+v", diff, r)
	}
	fix := editorScript(t, scripts, "retry.sh", "printf '%s\\n' '- lex (ana)' >> \"$1\"\n")
	r = sh(again, "EDITOR="+fix)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "saved version 3 ") {
		t.Errorf("%s, run elsewhere: %+v", again, r)
	}
	if doc := b.ok(t, "doc"); !strings.HasPrefix(doc, "# Plan\n\n- parse\n") || !strings.Contains(doc, "\nemit (codex)\n") || !strings.HasSuffix(doc, "\n- lex (ana)\n") {
		t.Errorf("the document after the retry: %q", doc)
	}
}
