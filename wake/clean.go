package wake

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// clean keeps of s what reads the same on every terminal and in every
// prompt: it drops terminal escape sequences (ESC and C1 introduced: CSI,
// OSC, DCS and the other strings, two-byte escapes), every other control
// character, invalid UTF-8 and the invisible characters that reorder or
// hide text (bidi embeddings, overrides and isolates, marks, zero-width
// space, byte-order mark). Runs of white space, newlines included, become
// one space, with none at either end.
func clean(s string) string {
	var b strings.Builder
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			i++
			continue
		case r == 0x1b:
			i = skipEscape(s, i+size)
			continue
		case r == 0x9b:
			i = skipCSI(s, i+size)
			continue
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
			i = skipString(s, i+size)
			continue
		}
		i += size
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(r) || hidden(r) {
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// hidden reports the invisible characters that reorder or hide text: the
// bidi embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069),
// marks (U+200E, U+200F, U+061C), the zero-width space, the word joiner
// and the byte-order mark.
func hidden(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	switch r {
	case 0x200e, 0x200f, 0x061c, 0x200b, 0x2060, 0xfeff:
		return true
	}
	return false
}

// skipEscape returns the index after the escape sequence whose ESC ends
// just before j: a CSI (ESC [), a string (ESC ] OSC, ESC P DCS, ESC X,
// ESC ^, ESC _), or intermediate bytes and one final byte. Anything else
// leaves only the ESC dropped.
func skipEscape(s string, j int) int {
	if j >= len(s) {
		return j
	}
	switch c := s[j]; {
	case c == '[':
		return skipCSI(s, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, j+1)
	case c >= 0x20 && c <= 0x2f:
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
		return j
	case c >= 0x30 && c <= 0x7e:
		return j + 1
	}
	return j
}

// skipCSI returns the index after a control sequence's parameter and
// intermediate bytes and its final byte, starting at j.
func skipCSI(s string, j int) int {
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		j++
	}
	return j
}

// skipString returns the index after a control string starting at j, which
// ends with BEL, the string terminator (ESC \ or U+009C), or before another
// ESC; an unterminated string runs to the end of s, as a terminal would
// swallow it.
func skipString(s string, j int) int {
	for ; j < len(s); j++ {
		switch {
		case s[j] == 0x07:
			return j + 1
		case s[j] == 0x1b:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			return j
		case strings.HasPrefix(s[j:], "\u009c"):
			return j + len("\u009c")
		}
	}
	return j
}

// capRunes cuts s to at most n runes, the last one an ellipsis when
// anything was cut.
func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}

// capBytes cuts s to at most n bytes on a rune boundary, the last rune an
// ellipsis when anything was cut.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}

// maxDetail bounds a delivery's detail, in bytes.
const maxDetail = 200

// detail makes text a harness or a command answered fit for a Delivery: it
// is cleaned, every occurrence of a hidden string (the token, the text
// sent) is replaced, and it is cut to maxDetail bytes.
func detail(s string, hide ...string) string {
	s = clean(s)
	for _, h := range hide {
		for _, form := range []string{h, clean(h)} {
			if form != "" {
				s = strings.ReplaceAll(s, form, "[redacted]")
			}
		}
	}
	return capBytes(s, maxDetail)
}
