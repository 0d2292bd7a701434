package stick

import (
	"strings"
	"unicode"
)

// MaxSectionLen is the longest section title AppendDoc accepts, in bytes.
const MaxSectionLen = 200

// ConclusionSection is the document section Close writes its conclusion into.
const ConclusionSection = "Conclusion"

// sectionTitle normalises a section argument: "Plan", "## Plan" and
// " ## Plan " all name the section headed "## Plan"; "" names none.
func sectionTitle(section string) (string, error) {
	if section == "" {
		return "", nil
	}
	title := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(section), "#"))
	if !strings.ContainsFunc(title, unicode.IsControl) {
		// As the heading will read it back: "Decisions ##" is "Decisions".
		_, title = headingLevel("## " + title)
	}
	switch {
	case title == "":
		return "", invalidArg("section", "section %s has no title; give the heading's text, for example \"Decisions\"", Quote(section))
	case len(title) > MaxSectionLen:
		return "", invalidArg("section", "section is %d bytes; at most %d are allowed", len(title), MaxSectionLen)
	case strings.ContainsFunc(title, unicode.IsControl):
		return "", invalidArg("section", "section must be one line of text without control characters")
	}
	if problem := textProblem(title, MaxSectionLen, true); problem != "" {
		return "", invalidArg("section", "section %s", problem)
	}
	return title, nil
}

// docLines splits markdown into lines that keep their newline.
func docLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
}

// headingLevel returns the level of an ATX heading line (1 for "# x", 2 for
// "## x", ...) and its title, or 0 for any other line.
func headingLevel(line string) (int, string) {
	l := strings.TrimRight(line, "\r\n")
	trimmed := strings.TrimLeft(l, " ")
	if len(l)-len(trimmed) > 3 {
		return 0, ""
	}
	n := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
	if n == 0 || n > 6 {
		return 0, ""
	}
	rest := trimmed[n:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, ""
	}
	title := strings.TrimSpace(rest)
	if t := strings.TrimRight(title, "#"); t != title && (t == "" || strings.HasSuffix(t, " ")) {
		title = strings.TrimSpace(t)
	}
	return n, title
}

// fenceOpen returns the fence a line opens: its character and length
// ("```" or "~~~", three or more), or zero when it opens none.
func fenceOpen(line string) (byte, int) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return 0, 0
	}
	return t[0], n
}

// fenceCloses reports whether line closes a fence of character c and
// length n: the same character, at least as many, and nothing after but
// blanks.
func fenceCloses(line string, c byte, n int) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	m := len(t) - len(strings.TrimLeft(t, string(c)))
	return m >= n && strings.TrimSpace(t[m:]) == ""
}

// fences tracks fenced code blocks line by line: code reports whether a
// line is inside (or opens or closes) one, so headings there are not
// headings.
type fences struct {
	c byte
	n int
}

func (f *fences) code(line string) bool {
	if f.n > 0 {
		if fenceCloses(strings.TrimRight(line, "\r\n"), f.c, f.n) {
			f.c, f.n = 0, 0
		}
		return true
	}
	if c, n := fenceOpen(strings.TrimRight(line, "\r\n")); n > 0 {
		f.c, f.n = c, n
		return true
	}
	return false
}

// findSection returns the line index of the "## title" heading (compared
// without case) and the index just past its section: the next heading of
// level 1 or 2, or len(lines). Headings in fenced code do not count. start
// is -1 when there is no such section.
func findSection(lines []string, title string) (start, end int) {
	start, end = -1, len(lines)
	var f fences
	for i, line := range lines {
		if f.code(line) {
			continue
		}
		level, t := headingLevel(line)
		if level == 0 || level > 2 {
			continue
		}
		if start >= 0 {
			return start, i
		}
		if level == 2 && strings.EqualFold(t, title) {
			start = i
		}
	}
	return start, end
}

// block returns text as lines ending in exactly one newline.
func block(text string) string {
	return strings.TrimRight(text, "\n") + "\n"
}

// appendUnder returns content with text added at the end, or at the end of
// the section titled title (a new section at the end if there is none).
func appendUnder(content, title, text string) string {
	text = closedFences(text)
	if title == "" {
		if content == "" {
			return block(text)
		}
		lines := docLines(content)
		return splice(lines, len(lines), separate(lines[len(lines)-1], text), text, len(lines))
	}
	lines := docLines(content)
	start, end := findSection(lines, title)
	if start < 0 {
		return newSection(content, title, text)
	}
	last := end
	for last > start+1 && strings.TrimSpace(lines[last-1]) == "" {
		last--
	}
	return splice(lines, last, last == start+1 || separate(lines[last-1], text), text, end)
}

// separate reports whether text appended after the line last needs a
// blank line before it: always, but between two items of a list, so an
// appended paragraph is a paragraph of its own and a list stays tight.
func separate(last, text string) bool {
	if strings.TrimSpace(last) == "" {
		return false
	}
	first, _, _ := strings.Cut(strings.TrimLeft(text, "\n"), "\n")
	return !listItem(last) || !listItem(first)
}

// listItem reports whether line starts an item of a markdown list:
// "- ", "* ", "+ ", "1. " or "1) ".
func listItem(line string) bool {
	t := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "+ ") {
		return true
	}
	digits := len(t) - len(strings.TrimLeft(t, "0123456789"))
	return digits > 0 && digits <= 9 && (strings.HasPrefix(t[digits:], ". ") || strings.HasPrefix(t[digits:], ") "))
}

// closedFences returns text with a fence it leaves open closed, so that
// what follows it in the document is not taken for code (and its
// headings for none).
func closedFences(text string) string {
	var f fences
	for _, l := range docLines(text) {
		f.code(l)
	}
	if f.n == 0 {
		return text
	}
	return block(text) + strings.Repeat(string(f.c), f.n) + "\n"
}

// replaceSection returns content with the section titled title holding
// only text (added at the end if there is none).
func replaceSection(content, title, text string) string {
	lines := docLines(content)
	start, end := findSection(lines, title)
	if start < 0 {
		return newSection(content, title, closedFences(text))
	}
	return splice(lines, start+1, true, closedFences(text), end)
}

// splice returns lines[:keep], a blank line if blank, text, and then, if
// end is not past the last line, a blank line and lines[end:]; every line
// ends in a newline.
func splice(lines []string, keep int, blank bool, text string, end int) string {
	var b strings.Builder
	for _, l := range lines[:keep] {
		b.WriteString(l)
	}
	if keep > 0 && !strings.HasSuffix(lines[keep-1], "\n") {
		b.WriteString("\n")
	}
	if blank {
		b.WriteString("\n")
	}
	b.WriteString(block(text))
	if end < len(lines) {
		b.WriteString("\n")
		for _, l := range lines[end:] {
			b.WriteString(l)
		}
	}
	return block(b.String())
}

// nested returns text with its headings (outside fenced code) two levels
// deeper, at most 6, so that all of it stays inside one "## " section, a
// later replaceSection replaces all of it, and its own levels keep their
// order.
func nested(text string) string {
	lines := docLines(text)
	var f fences
	changed := false
	for i, l := range lines {
		if f.code(l) {
			continue
		}
		if level, _ := headingLevel(l); level > 0 {
			t := strings.TrimLeft(l, " ")
			lines[i] = strings.Repeat("#", min(level+2, 6)) + t[level:]
			changed = true
		}
	}
	if !changed {
		return text
	}
	out := strings.Join(lines, "")
	if strings.HasSuffix(text, "\n") {
		out += "\n"
	}
	return out
}

// newSection appends "## title" and text to content, after a blank line.
func newSection(content, title, text string) string {
	out := ""
	if strings.TrimSpace(content) != "" {
		out = strings.TrimRight(content, "\n") + "\n\n"
	}
	return out + "## " + title + "\n\n" + block(text)
}
