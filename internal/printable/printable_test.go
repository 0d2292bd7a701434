package printable_test

import (
	"testing"

	"github.com/stickhq/stick/internal/printable"
)

// Controls and invalid bytes are dropped, and a rune that would pass the
// budget is left out while a smaller one after it still fits.
func TestKeep(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"claude-code 1.2", 64, "claude-code 1.2"},
		{"a\x1b[2Jb\nc\xffd", 64, "a[2Jbcd"},
		{"abc", 2, "ab"},
		{"a€b", 3, "ab"},
		{"", 8, ""},
	} {
		if got := printable.Keep(tc.in, tc.max); got != tc.want {
			t.Errorf("Keep(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestASCII(t *testing.T) {
	for s, want := range map[string]bool{
		"claude-code": true, "a b~": true, " ": true,
		"": false, "tab\there": false, "new\nline": false, "é": false, "\x7f": false,
	} {
		if got := printable.ASCII(s); got != want {
			t.Errorf("ASCII(%q) = %v, want %v", s, got, want)
		}
	}
}
