package linediff

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines a unified diff shows around
// each change.
const diffContext = 3

// maxDiffEdits bounds the edit distance the line diff searches for a
// shortest script. Past it the lines between the common head and tail are
// shown as removed and added whole: still a correct diff, only not the
// shortest, with memory bounded by the square of this number.
const maxDiffEdits = 1000

// diffOp is one line of an edit script: a line both texts keep, a line only
// the old text has, or a line only the new text has.
type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// Unified returns the unified diff ("diff -u" format) that turns oldText
// into newText, with the file headers oldName and newName, or "" when the
// texts are equal. A last line without a newline is marked as diff marks
// it. The script is a shortest one up to maxDiffEdits changed lines; past that
// the lines between the texts' common head and tail are shown removed and
// added whole, so the time and memory stay bounded for any input.
func Unified(oldName, newName, oldText, newText string) string {
	if oldText == newText {
		return ""
	}
	ops := diffLines(splitLines(oldText), splitLines(newText))
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks(ops) {
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.oldStart, h.oldLen), hunkRange(h.newStart, h.newLen))
		for _, op := range ops[h.from:h.to] {
			b.WriteByte(op.kind)
			b.WriteString(strings.TrimSuffix(op.line, "\n"))
			b.WriteByte('\n')
			if !strings.HasSuffix(op.line, "\n") {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

// splitLines splits s into lines that keep their newline; the last may
// have none.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffLines returns a shortest edit script from a to b (Myers' greedy
// algorithm), after taking off the lines both start and end with.
func diffLines(a, b []string) []diffOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a[:head] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, myers(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// myers returns a shortest edit script from a to b, or, when it needs more
// than maxDiffEdits edits, all of a removed and all of b added.
func myers(a, b []string) []diffOp {
	// Compare small integers rather than strings.
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x0, y0 := intern(a), intern(b)
	n, m := len(a), len(b)
	limit := min(n+m, maxDiffEdits)
	// v[k+off] is the furthest x reached on diagonal k = x-y; trace[d]
	// keeps v after step d, for diagonals -d..d.
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int32
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[k-1+off] < v[k+1+off]) {
				x = v[k+1+off] // down: an added line
			} else {
				x = v[k-1+off] + 1 // right: a removed line
			}
			y := x - k
			for x < n && y < m && x0[x] == y0[y] {
				x++
				y++
			}
			v[k+off] = x
			if x >= n && y >= m {
				found = d
			}
		}
		step := make([]int32, 2*d+1)
		for i := range step {
			step[i] = int32(v[off-d+i])
		}
		trace = append(trace, step)
	}
	if found < 0 {
		ops := make([]diffOp, 0, n+m)
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// Walk back from (n, m) through the steps, collecting the script in reverse.
	rev := make([]diffOp, 0, n+m)
	x, y := n, m
	for d := found; d > 0; d-- {
		prev := trace[d-1] // diagonals -(d-1)..d-1, at index k+d-1
		at := func(k int) int { return int(prev[k+d-1]) }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		// The step went down (a line added) or right (a line removed) from
		// (px, py); a run of kept lines follows it up to (x, y).
		mx, my := px+1, py
		if pk == k+1 {
			mx, my = px, py+1
		}
		for x > mx && y > my {
			x--
			y--
			rev = append(rev, diffOp{' ', a[x]})
		}
		if pk == k+1 {
			rev = append(rev, diffOp{'+', b[py]})
		} else {
			rev = append(rev, diffOp{'-', a[px]})
		}
		x, y = px, py
	}
	for x > 0 {
		x--
		rev = append(rev, diffOp{' ', a[x]})
	}
	ops := make([]diffOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

// hunk is a run of an edit script shown together: ops[from:to], covering
// oldLen lines of the old text from line oldStart and newLen lines of the
// new one from line newStart (0-based).
type hunk struct {
	from, to         int
	oldStart, oldLen int
	newStart, newLen int
}

// hunks groups the changes of an edit script with diffContext unchanged
// lines around each; changes closer than twice that share a hunk.
func hunks(ops []diffOp) []hunk {
	var out []hunk
	oldLine, newLine := 0, 0
	// positions of each op in both texts
	oldAt, newAt := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, op := range ops {
		oldAt[i], newAt[i] = oldLine, newLine
		if op.kind != '+' {
			oldLine++
		}
		if op.kind != '-' {
			newLine++
		}
	}
	oldAt[len(ops)], newAt[len(ops)] = oldLine, newLine
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-diffContext)
		end := i // one past the last change of the hunk
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		to := min(len(ops), end+diffContext)
		out = append(out, hunk{from: from, to: to,
			oldStart: oldAt[from], oldLen: oldAt[to] - oldAt[from],
			newStart: newAt[from], newLen: newAt[to] - newAt[from]})
		i = to
	}
	return out
}

// hunkRange writes a hunk's range as diff does: "start,len" with 1-based
// lines, "start" alone for one line, and the line before for none.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
