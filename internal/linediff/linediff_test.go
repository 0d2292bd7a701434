package linediff

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a unified diff to old, checking every context and
// removed line against old, and returns the new text.
func applyUnified(t *testing.T, old, diff string) string {
	t.Helper()
	if diff == "" {
		return old
	}
	lines := splitLines(old)
	dl := strings.SplitAfter(diff, "\n")
	if !strings.HasPrefix(dl[0], "--- ") || !strings.HasPrefix(dl[1], "+++ ") {
		t.Fatalf("no file headers:\n%s", diff)
	}
	header := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n$`)
	var out []string
	pos := 0 // next line of old to copy
	var last *string
	for i := 2; i < len(dl) && dl[i] != ""; i++ {
		l := dl[i]
		if m := header.FindStringSubmatch(l); m != nil {
			start, _ := strconv.Atoi(m[1])
			n := 1
			if m[2] != "" {
				n, _ = strconv.Atoi(m[2])
			}
			if n > 0 {
				start-- // 1-based; an empty range names the line before
			}
			if start < pos {
				t.Fatalf("hunk %q goes back before line %d:\n%s", l, pos, diff)
			}
			out = append(out, lines[pos:start]...)
			pos = start
			continue
		}
		text := l[1:]
		switch l[0] {
		case ' ', '-':
			if pos >= len(lines) || strings.TrimSuffix(lines[pos], "\n") != strings.TrimSuffix(text, "\n") {
				t.Fatalf("line %d of old is %q, the diff says %q:\n%s", pos+1, lines[pos], text, diff)
			}
			if l[0] == ' ' {
				out = append(out, lines[pos])
				last = &out[len(out)-1]
			} else {
				last = nil
			}
			pos++
		case '+':
			out = append(out, text)
			last = &out[len(out)-1]
		case '\\':
			if last != nil {
				*last = strings.TrimSuffix(*last, "\n")
			}
		default:
			t.Fatalf("bad diff line %q:\n%s", l, diff)
		}
	}
	out = append(out, lines[pos:]...)
	return strings.Join(out, "")
}

// lcs is the length of a longest common subsequence of a and b.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func changedLines(diff string) int {
	n := 0
	for _, l := range strings.Split(diff, "\n") {
		if (strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "--- ")) || (strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++ ")) {
			n++
		}
	}
	return n
}

func TestUnifiedDiffExample(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n"
	want := `--- v1
+++ v2
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -11,3 +11,4 @@
 k
 l
 m
+n
`
	if got := Unified("v1", "v2", old, new); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	// Changes six lines apart share a hunk; an empty old text is "-0,0".
	if got := Unified("a", "b", "1\n2\n3\n4\n5\n6\n7\n8\n", "x\n2\n3\n4\n5\n6\n7\ny\n"); strings.Count(got, "@@ ") != 1 {
		t.Errorf("close changes must share a hunk:\n%s", got)
	}
	if got := Unified("a", "b", "", "x\ny\n"); got != "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n" {
		t.Errorf("from empty:\n%s", got)
	}
	if got := Unified("a", "b", "x\n", "x"); got != "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n" {
		t.Errorf("a lost final newline:\n%q", got)
	}
	if got := Unified("a", "b", "same\n", "same\n"); got != "" {
		t.Errorf("equal texts: %q", got)
	}
}

// Random texts over a small alphabet of lines: the diff applies, and it is
// a shortest one.
func TestUnifiedDiffRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var b strings.Builder
		for range r.IntN(30) {
			fmt.Fprintf(&b, "line %d\n", r.IntN(6))
		}
		if r.IntN(4) == 0 {
			b.WriteString("no newline")
		}
		return b.String()
	}
	for i := range 2000 {
		a, b := text(), text()
		d := Unified("a", "b", a, b)
		if got := applyUnified(t, a, d); got != b {
			t.Fatalf("case %d: applying\n%s\nto %q gives %q, want %q", i, d, a, got, b)
		}
		la, lb := splitLines(a), splitLines(b)
		if want := len(la) + len(lb) - 2*lcs(la, lb); changedLines(d) != want {
			t.Fatalf("case %d: %d changed lines, a shortest diff has %d:\n%s", i, changedLines(d), want, d)
		}
	}
}

// Past maxDiffEdits the middle is removed and added whole: still correct.
func TestUnifiedDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	head, tail := "# title\n", "the end\n"
	oldText, newText := head+a.String()+tail, head+b.String()+tail
	d := Unified("a", "b", oldText, newText)
	if got := applyUnified(t, oldText, d); got != newText {
		t.Fatal("the large diff does not apply")
	}
	// A few changes in a long text stay small.
	lines := splitLines(oldText)
	lines[100], lines[2500] = "changed\n", "changed too\n"
	edited := strings.Join(lines, "")
	d = Unified("a", "b", oldText, edited)
	if changedLines(d) != 4 || strings.Count(d, "@@ ") != 2 || applyUnified(t, oldText, d) != edited {
		t.Errorf("two changed lines:\n%s", d)
	}
}
