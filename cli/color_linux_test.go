package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and returns its controlling side, from
// which the test reads, and the terminal side a command writes to.
func openPTY(t *testing.T) (ctl, term *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ctl.Close() })
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("cannot open the terminal side of a pseudo-terminal: %v", err)
	}
	return ctl, term
}

// runOnTerminal runs the command line in-process, on the scene's clock,
// with its standard output on a pseudo-terminal and returns what the
// terminal received.
func runOnTerminal(s *scene, args ...string) (int, string) {
	t := s.t
	t.Helper()
	ctl, term := openPTY(t)
	got := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, ctl) // ends with EIO once the terminal side is closed
		got <- b.String()
	}()
	var errb bytes.Buffer
	code := Execute(context.Background(), LocalWiring(stick.WithClock(s.clock)), args, strings.NewReader(""), term, &errb, "v1.2.3")
	term.Close()
	select {
	case out := <-got:
		return code, strings.ReplaceAll(out, "\r\n", "\n")
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal's output did not end within 10 s")
	}
	return code, ""
}

// On a terminal the commands colour states and titles; NO_COLOR and --json
// turn that off.
func TestColourOnTerminal(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	s.claim(codex, s.roomID(s.repo))

	code, out := runOnTerminal(s, "state", s.repo)
	for _, want := range []string{
		"state  \x1b[32mowned\x1b[0m, turn 1",
		"holder \x1b[1mcodex:1\x1b[0m",
		"\x1b[32mactive\x1b[0m",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("state on a terminal lacks %q: %d %q", want, code, out)
		}
	}

	fakeEnv(t, map[string]string{"USER": "ana", "NO_COLOR": "1"})
	if code, out := runOnTerminal(s, "state", s.repo); code != 0 || strings.Contains(out, "\x1b[") || !strings.Contains(out, "state  owned, turn 1") {
		t.Errorf("NO_COLOR must turn colours off: %d %q", code, out)
	}
	fakeEnv(t, map[string]string{"USER": "ana"})
	if code, out := runOnTerminal(s, "state", s.repo, "--json"); code != 0 || strings.Contains(out, "\x1b[") || !strings.HasPrefix(out, "{") {
		t.Errorf("--json on a terminal must stay plain JSON: %d %q", code, out)
	}
}

// stripColour removes the colour codes a terminal would not show.
func stripColour(s string) string { return ansiRE.ReplaceAllString(s, "") }

var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

// Colour codes take no room on the screen: without them, what a terminal
// shows of the event log must be the plain output, padding included.
func TestColourEventsLineUp(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	s.release(codex, s.claim(codex, s.roomID(s.repo)), sampleHandoff)
	plain := s.ok("events", s.repo)
	code, out := runOnTerminal(s, "events", s.repo)
	if code != 0 || !strings.Contains(out, "\x1b[1mrelease") {
		t.Fatalf("events on a terminal: %d %q", code, out)
	}
	if got := stripColour(out); got != plain {
		t.Errorf("events on a terminal, colours removed:\n%s\nplain:\n%s", got, plain)
	}
}

// The same for tables: a coloured title or state must not shift the columns.
func TestColourTablesLineUp(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.join("codex:1", s.repo, false)
	s.claim(codex, s.roomID(s.repo))
	for _, args := range [][]string{{"list", s.repo}, {"state", s.repo}, {"policy", s.repo}} {
		plain := s.ok(args...)
		code, out := runOnTerminal(s, args...)
		if code != 0 || !strings.Contains(out, "\x1b[") {
			t.Fatalf("%v on a terminal: %d %q", args, code, out)
		}
		if got := stripColour(out); got != plain {
			t.Errorf("%v on a terminal, colours removed:\n%s\nplain:\n%s", args, got, plain)
		}
	}
}

// search shows its matches in bold on a terminal, without the markers;
// piped, it keeps the markers; NO_COLOR keeps them too.
func TestSearchBoldOnTerminal(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.ok("note", "--path", s.repo, "the parser needs a fuzz target")
	code, out := runOnTerminal(s, "search", "parser")
	if code != 0 || !strings.Contains(out, "  the \x1b[1mparser\x1b[0m needs a fuzz target\n") || strings.Contains(out, "**") {
		t.Errorf("search on a terminal: %d %q", code, out)
	}
	if plain := s.ok("search", "parser"); !strings.Contains(plain, "  the **parser** needs a fuzz target\n") || strings.Contains(plain, "\x1b[") {
		t.Errorf("search piped: %q", plain)
	}
	fakeEnv(t, map[string]string{"USER": "ana", "NO_COLOR": "1"})
	if code, out := runOnTerminal(s, "search", "parser"); code != 0 || !strings.Contains(out, "**parser**") || strings.Contains(out, "\x1b[") {
		t.Errorf("search with NO_COLOR: %d %q", code, out)
	}
}

// A "**" of the text, which stick escapes in a snippet, shows as "**" on a
// terminal, apart from the bold matches; piped, the snippet stays markdown.
func TestSearchEscapedStarsOnTerminal(t *testing.T) {
	s := newScene(t)
	s.join("human:ana", s.repo, false)
	s.ok("note", "--path", s.repo, "pass **kwargs to the lexer")
	code, out := runOnTerminal(s, "search", "lexer")
	if code != 0 || !strings.Contains(out, "  pass **kwargs to the \x1b[1mlexer\x1b[0m\n") {
		t.Errorf("search on a terminal: %d %q", code, out)
	}
	if plain := s.ok("search", "lexer"); !strings.Contains(plain, "  pass \\*\\*kwargs to the **lexer**\n") {
		t.Errorf("search piped: %q", plain)
	}
}
