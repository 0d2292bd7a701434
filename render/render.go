package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line returns s made safe to print as one line: newlines and tabs are
// written as `\n` and `\t`, so a single-line field (an agent id, a path, a
// reason, a type) can never start a line of its own.
func Line(s string) string { return clean(s, false) }

// Text returns s made safe to print as a text of several lines: newlines
// and tabs are kept (CRLF line ends read as newlines), every other control
// is written out. Callers indent or quote the lines after the first so they
// cannot pass for the output's own lines.
func Text(s string) string { return clean(s, true) }

// Lines returns each of ss made safe with Line.
func Lines(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Line(s)
	}
	return out
}

// Texts returns each of ss made safe with Text.
func Texts(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Text(s)
	}
	return out
}

func clean(s string, multiline bool) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unsafe(r) || !multiline && (r == '\n' || r == '\t')
	}) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			if multiline {
				b.WriteRune(r)
			} else if r == '\n' {
				b.WriteString(`\n`)
			} else {
				b.WriteString(`\t`)
			}
		case r == '\r':
			if !multiline || i+1 >= len(s) || s[i+1] != '\n' {
				b.WriteString(`\r`)
			}
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafe reports whether a terminal or a reader could take r for something
// other than a character to show: a C0 or C1 control but newline and tab,
// DEL, a bidirectional control, a line or paragraph separator.
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return r != '\n' && r != '\t'
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}
