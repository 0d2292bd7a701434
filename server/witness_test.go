package server_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// The check file of the contenders is the critical-section witness of the
// chaos soak (package internal/chaos), in its lines, without kills:
//
//	enter <turn> <agent> <pid> <claim|takeover> <token>
//	work <turn> <agent> <pid> <n>
//	exit <turn> <agent> <pid> <why>
//
// each one O_APPEND write, so their order is the order they happened in.

// entered is an enter line: who got which turn, how, and the handoff token
// it received ("-" for none).
type entered struct {
	agent, how, token string
	line              int
}

// witness is what a check file showed: every turn entered, and every
// violation of mutual exclusion or of the handoffs.
type witness struct {
	enters     map[int64]entered
	last       int64
	lines      int
	violations []string
}

// checkWitness reads a complete check file and holds it to the chaos
// soak's rules: turns in enter lines strictly increase, nobody enters
// while another is inside, work and exit lines come from the one inside
// for its turn, nobody is inside at the end, and the file ends with a
// whole line. Besides, since nobody is killed: turns are entered 1, 2, 3,
// ... with no gap (every grant reached its holder), and the holder of
// every turn claimed after another received that turn's handoff, whose
// token names the previous holder and turn.
func checkWitness(b []byte) *witness {
	w := &witness{enters: map[int64]entered{}}
	fail := func(n int, format string, args ...any) {
		w.violations = append(w.violations, fmt.Sprintf("check file line %d: ", n)+fmt.Sprintf(format, args...))
	}
	var inside *entered
	var insideTurn int64
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		fail(bytes.Count(b, []byte("\n"))+1, "the file ends in an incomplete line")
	}
	for _, s := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if s == "" && len(b) == 0 {
			break
		}
		w.lines++
		n := w.lines
		f := strings.Fields(s)
		want := map[string]int{"enter": 6, "work": 5, "exit": 5}
		if len(f) == 0 || want[f[0]] != len(f) {
			fail(n, "unreadable line %q", s)
			continue
		}
		turn, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || turn < 1 {
			fail(n, "bad turn in %q", s)
			continue
		}
		agent := f[2]
		switch f[0] {
		case "enter":
			if turn <= w.last {
				fail(n, "%s entered turn %d after turn %d was entered: turns must strictly increase", agent, turn, w.last)
			} else if turn != w.last+1 {
				fail(n, "%s entered turn %d after turn %d: turns %d to %d were granted and never entered", agent, turn, w.last, w.last+1, turn-1)
			}
			if inside != nil {
				fail(n, "%s entered turn %d while %s was still inside turn %d (line %d): two holders at once",
					agent, turn, inside.agent, insideTurn, inside.line)
			}
			e := entered{agent: agent, how: f[4], token: f[5], line: n}
			if prev, ok := w.enters[turn-1]; e.how == "claim" && ok && e.token != handoffToken(prev.agent, turn-1) {
				fail(n, "%s claimed turn %d with the handoff %q; want the one %s left at turn %d, %q",
					agent, turn, e.token, prev.agent, turn-1, handoffToken(prev.agent, turn-1))
			}
			if turn == 1 && e.token != "-" {
				fail(n, "%s claimed the first turn with a handoff %q", agent, e.token)
			}
			w.enters[turn] = e
			w.last = max(w.last, turn)
			inside, insideTurn = &e, turn
		case "work", "exit":
			if inside == nil || inside.agent != agent || insideTurn != turn {
				who := "nobody is inside"
				if inside != nil {
					who = fmt.Sprintf("%s is inside turn %d since line %d", inside.agent, insideTurn, inside.line)
				}
				fail(n, "%s %s turn %d outside its critical section (%s)", agent, f[0], turn, who)
			}
			if f[0] == "exit" && inside != nil && inside.agent == agent {
				inside = nil
			}
		}
	}
	if inside != nil {
		fail(w.lines, "%s is still inside turn %d (line %d) at the end", inside.agent, insideTurn, inside.line)
	}
	return w
}

// takeovers counts the turns entered by a takeover.
func (w *witness) takeovers() int {
	n := 0
	for _, e := range w.enters {
		if e.how == "takeover" {
			n++
		}
	}
	return n
}

// The witness finds what it must: two holders at once, a turn entered
// twice or skipped, a handoff the next holder did not receive, work
// outside the section, someone still inside at the end, a torn last line;
// and passes a sound file.
func TestWitnessCatches(t *testing.T) {
	sound := "enter 1 a 1 claim -\nwork 1 a 1 1\nexit 1 a 1 done\n" +
		"enter 2 b 2 claim a.t1\nexit 2 b 2 done\n" +
		"enter 3 a 1 takeover -\nexit 3 a 1 done\n"
	if w := checkWitness([]byte(sound)); len(w.violations) != 0 || w.last != 3 || w.takeovers() != 1 {
		t.Fatalf("a sound file: %v, last %d, %d takeovers", w.violations, w.last, w.takeovers())
	}
	for _, tc := range []struct{ name, file, want string }{
		{"overlap", "enter 1 a 1 claim -\nenter 2 b 2 claim a.t1\n", "two holders at once"},
		{"twice", "enter 1 a 1 claim -\nexit 1 a 1 done\nenter 1 b 2 claim -\nexit 1 b 2 done\n", "strictly increase"},
		{"gap", "enter 1 a 1 claim -\nexit 1 a 1 done\nenter 3 b 2 claim a.t2\nexit 3 b 2 done\n", "never entered"},
		{"lost handoff", "enter 1 a 1 claim -\nexit 1 a 1 done\nenter 2 b 2 claim -\nexit 2 b 2 done\n", "want the one a left"},
		{"outside", "enter 1 a 1 claim -\nwork 1 b 2 1\nexit 1 a 1 done\n", "outside its critical section"},
		{"inside at the end", "enter 1 a 1 claim -\n", "still inside"},
		{"torn", "enter 1 a 1 claim -\nexit 1 a 1 do", "incomplete line"},
	} {
		w := checkWitness([]byte(tc.file))
		if !strings.Contains(strings.Join(w.violations, "\n"), tc.want) {
			t.Errorf("%s: violations %q; want one saying %q", tc.name, w.violations, tc.want)
		}
	}
}
