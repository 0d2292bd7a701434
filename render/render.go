// Package render turns text that came from a room (notes, handoffs, the
// document, member ids, paths, search snippets) into text that is safe to
// show: on a terminal, in a pipe, in a markdown export. The CLI prints such
// text through it; JSON needs no more than its own escaping, and MCP tool
// results, read by a model rather than shown by a terminal, carry the text
// as it is.
//
// What a terminal would act on instead of show is written out visibly, the
// way Go writes a string literal, so a reader still sees that it was there:
//
//   - \n and \t as `\n` and `\t` in a single line (Line); kept in a text
//     of several lines (Text), where a CR right before a newline is dropped;
//   - any other C0 control, DEL and a lone CR as `\r` or `\xNN` (ESC is `\x1b`,
//     BEL `\x07`, backspace `\x08`, DEL `\x7f`), so no escape sequence (CSI, OSC
//     window titles, OSC 52 clipboard writes, OSC 8 links) and no carriage
//     return reaches the terminal;
//   - the C1 controls U+0080–U+009F (U+009B is a one-character CSI) as `\u009b`;
//   - the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069) and the line and paragraph separators U+2028, U+2029 as
//     `\u202e` and so on, so text cannot be made to read in another order;
//   - a byte that is not valid UTF-8 as `\xNN`.
//
// Everything else passes unchanged: letters of every script, emoji (joiners
// included), punctuation, and the backslash itself, which is not doubled:
// the output is for reading, not for parsing back.
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
