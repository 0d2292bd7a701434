package chaos

import (
	"strings"
	"testing"
)

// checkSection runs the checker over lines (without trailing newlines).
func checkSection(lines ...string) *sectionChecker {
	c := newSectionChecker()
	c.feed([]byte(strings.Join(lines, "\n") + "\n"))
	c.finish()
	return c
}

// wantViolation fails unless exactly one violation was found and it says want.
func wantViolation(t *testing.T, violations []string, want string) {
	t.Helper()
	if len(violations) != 1 || !strings.Contains(violations[0], want) {
		t.Fatalf("want one violation saying %q, got %d:\n%s", want, len(violations), strings.Join(violations, "\n"))
	}
}

func wantNoViolation(t *testing.T, violations []string) {
	t.Helper()
	if len(violations) > 0 {
		t.Fatalf("want no violation, got:\n%s", strings.Join(violations, "\n"))
	}
}

func TestSectionSound(t *testing.T) {
	c := checkSection(
		"enter 1 a 10 claim -", "work 1 a 10 1", "exit 1 a 10 done",
		"enter 2 b 11 claim a.t1.1", "work 2 b 11 1", "kill b 11", "killed b 11 1",
		"enter 3 c 12 takeover a.t1.1", "exit 3 c 12 done",
	)
	wantNoViolation(t, c.violations)
	if c.lines != 9 || c.enters[2].token != "a.t1.1" || c.exits[3] != "c" || !c.killed("b") || c.killed("c") {
		t.Fatalf("facts: %d lines, enters %v, exits %v, kills %v", c.lines, c.enters, c.exits, c.kills)
	}
}

// Two holders at once: an enter while another agent is inside, which the
// driver was not killing.
func TestSectionOverlap(t *testing.T) {
	c := checkSection(
		"enter 1 a 10 claim -", "work 1 a 10 1",
		"enter 2 b 11 takeover -", "exit 2 b 11 done",
	)
	if len(c.violations) == 0 || !strings.Contains(c.violations[0], "line 3: b entered turn 2 while a was still inside turn 1") ||
		!strings.Contains(c.violations[0], "two holders at once") {
		t.Fatalf("overlap not reported: %q", c.violations)
	}
	// A holder that was killed may be overtaken, but if it writes anything
	// afterwards it was alive: two holders again.
	c = checkSection(
		"enter 1 a 10 claim -", "kill a 10",
		"enter 2 b 11 takeover -", "work 1 a 10 2", "exit 2 b 11 done", "killed a 10 1",
	)
	if len(c.violations) == 0 || !strings.Contains(c.violations[0], "line 4: a wrote") || !strings.Contains(c.violations[0], "two holders at once") {
		t.Fatalf("a write after being overtaken not reported: %q", c.violations)
	}
	// The kill line must come before the overtaking enter.
	c = checkSection(
		"enter 1 a 10 claim -", "enter 2 b 11 takeover -", "kill a 10", "killed a 10 1", "exit 2 b 11 done",
	)
	wantViolation(t, c.violations, "was not being killed")
}

func TestSectionUnreadable(t *testing.T) {
	for _, bad := range []string{"work 1 a 10 1x", "enter 1 a 10 claim", "exit 0 a 10 done", "leave 1 a 10 x", "kill a", "killed a 10 x"} {
		c := checkSection("enter 1 a 10 claim -", bad, "exit 1 a 10 done")
		wantViolation(t, c.violations, "line 2: unreadable line")
	}
}

func TestSectionTurnsIncrease(t *testing.T) {
	c := checkSection(
		"enter 1 a 10 claim -", "exit 1 a 10 done",
		"enter 1 b 11 claim -", "exit 1 b 11 done",
	)
	wantViolation(t, c.violations, "b entered turn 1 after turn 1 was entered")
}

func TestSectionOutsideAndEnd(t *testing.T) {
	c := checkSection("enter 1 a 10 claim -", "exit 1 a 10 done", "work 1 a 10 3")
	wantViolation(t, c.violations, "a work turn 1 outside its critical section (nobody is inside)")
	c = checkSection("enter 1 a 10 claim -", "kill a 10", "killed a 10 1", "work 1 a 10 3")
	wantViolation(t, c.violations, "after it was killed and reaped")
	c = checkSection("enter 1 a 10 claim -", "work 1 a 10 1")
	wantViolation(t, c.violations, "a never left turn 1")
	c = newSectionChecker()
	c.feed([]byte("enter 1 a 10 claim -\nexit 1 a 10 do"))
	wantNoViolation(t, c.violations) // an incomplete line waits for the rest
	c.feed([]byte("ne\nenter 2 b 11 cl"))
	wantNoViolation(t, c.violations)
	c.finish()
	wantViolation(t, c.violations, "incomplete line")
}
