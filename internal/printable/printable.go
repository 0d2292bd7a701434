package printable

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Keep keeps the printable runes of s (valid UTF-8, no control
// characters), at most max bytes, so a client's odd name cannot make its
// calls fail.
func Keep(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || b.Len()+utf8.RuneLen(r) > max {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ASCII reports whether s is non-empty printable ASCII (space to '~'): what
// an HTTP header value that names something, such as a client or an
// idempotency key, may hold.
func ASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
