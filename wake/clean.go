package wake

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stickhq/stick/internal/printable"
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
	s = printable.StripEscapes(s)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || hidden(r):
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
