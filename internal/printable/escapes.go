package printable

import (
	"strings"
	"unicode/utf8"
)

// StripEscapes removes the terminal escape sequences of s, whole, so that
// what a terminal would act on is not even shown: those introduced by ESC
// (CSI, the control strings OSC, DCS, SOS, PM and APC up to their
// terminator, and the other escapes with their intermediate and final
// bytes) and by the C1 controls CSI (U+009B) and the string introducers.
// An unterminated control string runs to the end of s, as a terminal would
// swallow it. Every other character, other controls and invalid UTF-8
// included, is kept, for the caller to drop or write out.
func StripEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i = skipEscape(s, i+size)
		case r == 0x9b:
			i = skipCSI(s, i+size)
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
			i = skipString(s, i+size)
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
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
// ESC; an unterminated string runs to the end of s.
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
