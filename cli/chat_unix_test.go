//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// tmuxRequireEnv, set to 0, makes the tests of 'stick chat' skip where
// tmux is not installed, as STICK_REQUIRE_BROWSER=0 does the page's
// tests; otherwise a missing tmux fails them.
const tmuxRequireEnv = "STICK_REQUIRE_TMUX"

// tmuxPath finds tmux, which the tests of 'stick chat' drive the console
// in: a real terminal. Without it they fail, saying how to install it.
func tmuxPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err == nil {
		return p
	}
	msg := "tmux is not installed; the tests of 'stick chat' run the console in it. Install it (Debian, Ubuntu: apt-get install tmux; macOS: brew install tmux) or run .ci/run, which does"
	switch os.Getenv(tmuxRequireEnv) {
	case "0", "false", "no":
		t.Skip(msg + " (" + tmuxRequireEnv + "=0 skips them)")
	}
	t.Fatal(msg + "; " + tmuxRequireEnv + "=0 makes them skip instead")
	return ""
}

// tmux is a tmux server of a test's own (on a socket in a directory of
// its own, with no configuration file), killed when the test ends.
type tmux struct {
	t         *testing.T
	bin, sock string
}

func newTmux(t *testing.T) *tmux {
	t.Helper()
	bin := tmuxPath(t)
	// A socket's path must be short: not under a long TempDir.
	dir, err := os.MkdirTemp("", "stick-tmux")
	if err != nil {
		t.Fatal(err)
	}
	x := &tmux{t: t, bin: bin, sock: filepath.Join(dir, "sock")}
	t.Cleanup(func() {
		_ = exec.Command(bin, "-S", x.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return x
}

// run runs a tmux command on the test's server and returns its output.
func (x *tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command(x.bin, append([]string{"-S", x.sock, "-f", os.DevNull}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// display is a format of pane (#{pane_title}, #{pane_dead}, ...).
func (x *tmux) display(pane, format string) string {
	x.t.Helper()
	return strings.TrimRight(x.run("display-message", "-p", "-t", pane, format), "\n")
}

// screen is what pane shows; with escapes, its colours and attributes too.
func (x *tmux) screen(pane string, escapes bool) string {
	x.t.Helper()
	args := []string{"capture-pane", "-p", "-t", pane}
	if escapes {
		args = append(args, "-e")
	}
	return x.run(args...)
}

// typeLine types line into pane and presses Enter.
func (x *tmux) typeLine(pane, line string) {
	x.t.Helper()
	x.run("send-keys", "-t", pane, "-l", line)
	x.run("send-keys", "-t", pane, "Enter")
}

// waitFor polls pane's screen until ok accepts it, failing the test with
// the screen after 30 seconds. The console is a UI drawn by its own
// loop: polling what it shows is the only way to see it.
func (x *tmux) waitFor(pane, what string, ok func(screen string) bool) string {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := x.screen(pane, false)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("the console does not show %s; it shows:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitShows waits until pane shows want.
func (x *tmux) waitShows(pane, want string) string {
	x.t.Helper()
	return x.waitFor(pane, "\""+want+"\"", func(s string) bool { return strings.Contains(s, want) })
}

// 'stick chat' in a real terminal: it joins the room, posts "@reviewer
// please look" to the reviewer, shows the reply of another member as it
// is posted, shows a note full of escape sequences as text without the
// terminal acting on them, and /quit ends it with exit status 0.
func TestChatInTmux(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	for _, member := range []string{"reviewer", "builder"} {
		if r := runBin(t, b.repo, b.env, "join", "--agent", member); r.code != 0 {
			t.Fatalf("join --agent %s: %d %s", member, r.code, r.stderr)
		}
	}
	x := newTmux(t)

	// This terminal takes a window title from OSC 0, so the console's pane
	// keeping its own proves the console wrote none.
	x.run("new-session", "-d", "-s", "probe", "-x", "80", "-y", "5", "printf '\\033]0;probe-title\\007'; cat")
	x.waitFor("probe", "the probe's title", func(string) bool { return x.display("probe", "#{pane_title}") == "probe-title" })

	// The pane's shell says how the console exited, and keeps the pane
	// open to be read.
	x.run("new-session", "-d", "-s", "chat", "-x", "120", "-y", "40", "-c", b.repo,
		"-e", "TALKING_STICK_DATA_DIR="+b.data, "-e", identity.AgentEnv+"=human:ana", "-e", "NO_COLOR=1",
		"sh", "-c", `"$0" chat; echo "stick chat exited with status $?"; exec cat`, stickBin)
	title := x.display("chat", "#{pane_title}")
	x.waitShows("chat", "human:ana joined")
	x.waitShows("chat", "stick chat · room at "+b.repo+" · you are human:ana")

	x.typeLine("chat", "@reviewer please look")
	x.waitShows("chat", "human:ana → reviewer: please look")
	var sync stick.SyncResult
	if r := runBin(t, b.repo, b.env, "sync", "--agent", "reviewer", "--json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &sync) != nil {
		t.Fatalf("sync --agent reviewer: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// The reviewer's sync gives it first, among the notes addressed to it.
	i := slices.IndexFunc(sync.Addressed, func(e stick.Event) bool {
		return e.Type == stick.EventNote && e.From == "human:ana" && e.Text == "please look"
	})
	if i < 0 || !slices.Equal(sync.Addressed[i].Recipients, []string{"reviewer"}) {
		t.Fatalf("the reviewer's sync does not give the note \"please look\" from human:ana as addressed to it: %+v", sync)
	}
	// The reviewer is a command-line member: no way to wake it.
	x.waitShows("chat", "    → reviewer: not woken (no wake transport; away)")

	if r := runBin(t, b.repo, b.env, "note", "--agent", "reviewer", "on it"); r.code != 0 {
		t.Fatalf("note: %d %s", r.code, r.stderr)
	}
	x.waitShows("chat", "reviewer: on it")

	hostile := "before\x1b]0;pwned\x07middle\x1b[2Jafter\x1b[31mred"
	if r := runBin(t, b.repo, b.env, "note", "--agent", "builder", hostile); r.code != 0 {
		t.Fatalf("note: %d %s", r.code, r.stderr)
	}
	s := x.waitShows("chat", `builder: beforemiddleafterred`)
	if got := x.display("chat", "#{pane_title}"); got != title || got == "pwned" {
		t.Errorf("the pane's title changed from %q to %q", title, got)
	}
	for _, before := range []string{"please look", "reviewer: on it", "human:ana joined"} {
		if !strings.Contains(s, before) {
			t.Errorf("the screen was cleared: %q is gone:\n%s", before, s)
		}
	}
	// NO_COLOR: not one colour or attribute on the screen, so none that a
	// note set either.
	if styled := x.screen("chat", true); strings.Contains(styled, "\x1b") {
		t.Errorf("with NO_COLOR the screen has colours or attributes:\n%q", styled)
	}

	x.typeLine("chat", "/quit")
	s = x.waitShows("chat", "stick chat exited with status")
	if !strings.Contains(s, "stick chat exited with status 0\n") {
		t.Fatalf("/quit did not end the console with status 0:\n%s", s)
	}
}

// Without a terminal 'stick chat' refuses to start, and says what to use
// instead; the hidden --without-terminal runs it on pipes all the same.
func TestChatNeedsATerminal(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	b.ok(t, "join", "--agent", "reviewer")
	checkFailure(t, "chat on pipes", b.run(t, "chat"), 1,
		"stick: invalid_argument: 'stick chat' is a full-screen console and needs a terminal: its standard input or output is not one",
		"post a note with 'stick note', read what is new with 'stick sync' (or 'stick events --follow')")

	cmd := exec.Command(stickBin, "chat", "--without-terminal")
	cmd.Dir = b.repo
	cmd.Env = append(os.Environ(), b.env...)
	cmd.Stdin = strings.NewReader("hello from a pipe\r/quit\r")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chat --without-terminal: %v\n%s", err, errb.String())
	}
	var page stick.EventTail
	if err := json.Unmarshal([]byte(b.ok(t, "events", "--json")), &page); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(page.Events, func(e stick.Event) bool { return e.From == "human:ana" && e.Text == "hello from a pipe" }) {
		t.Fatalf("the note typed on the pipe was not posted: %+v", page.Events)
	}
}
