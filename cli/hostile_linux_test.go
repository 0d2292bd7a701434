package cli

import (
	"strings"
	"testing"
)

// On a terminal, too, where the commands colour their own output, no
// escape sequence or control character of a room gets through: the only
// escape sequences left are the commands' own colours.
func TestHostileTextOnTerminal(t *testing.T) {
	s := newScene(t)
	room := hostileRoom(t, s)
	for _, args := range [][]string{
		{"events", s.repo}, {"state", s.repo}, {"sync", s.repo}, {"search", "note"}, {"doc", s.repo},
		{"export", "--room", room}, {"list", s.repo}, {"status", s.repo},
	} {
		code, out := runOnTerminal(s, args...)
		if code != 0 {
			t.Fatalf("%v on a terminal: %d %q", args, code, out)
		}
		if r, ok := roomControl(stripColour(out)); ok {
			t.Errorf("%v on a terminal prints the control character %U of a room:\n%q", args, r, out)
		}
		if args[0] != "doc" && args[0] != "export" {
			for _, l := range strings.Split(stripColour(out), "\n") {
				if strings.HasPrefix(l, "FORGED") || strings.HasPrefix(l, "### #999") {
					t.Errorf("%v on a terminal lets a room's text start a line: %q", args, l)
				}
			}
		}
	}
}

// try and wait print the handoff they receive harmless: a real holder
// hands on a handoff whose every field carries the attacks.
func TestHostileHandoffOnTry(t *testing.T) {
	repo, _ := holderRepo(t)
	text := strings.ReplaceAll(hostile, "\x00", "") // a NUL cannot pass through argv
	mustRun(t, repo, "wait")
	mustRun(t, repo, "join", "--agent", "bob")
	mustRun(t, repo, "pass", "bob", "--status", text, "--next-action", text)
	r := runBin(t, repo, nil, "--agent", "bob", "try")
	if r.code != 0 || !strings.Contains(r.stdout, "your turn") {
		t.Fatalf("try: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	checkHarmless(t, "try", r.stdout, true)
}
