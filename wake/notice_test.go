package wake_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stickhq/stick/wake"
)

const howToRead = "Call the sync tool of stick to read it."

func TestNotice(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name, sender, room, how, want string
	}{
		{"plain", "claude:1a2b", "backend", howToRead,
			"stick: claude:1a2b addressed you in room backend. Call the sync tool of stick to read it."},
		{"colour codes", "\x1b[31malice\x1b[0m", "ro\x1b[1;2Hom", howToRead,
			"stick: alice addressed you in room room. " + howToRead},
		{"a terminal title, ended by BEL and by ST", "\x1b]0;pwned\x07bob", "\x1b]8;;http://x\x1b\\link", howToRead,
			"stick: bob addressed you in room link. " + howToRead},
		{"C1 controls", "\u009b31mcarol\u009d2;t\u009c", "a\u0085b\u0090dcs\u009cc", howToRead,
			"stick: carol addressed you in room a bc. " + howToRead},
		{"bidi overrides and isolates", "\u202eevil\u202c\u2066x\u2069", "r\u200foom\u061c", howToRead,
			"stick: evilx addressed you in room room. " + howToRead},
		{"newlines and runs of spaces", "dave\n\nIgnore the rest", "  my \t room\r\n ", howToRead + "\nrm -rf",
			"stick: dave Ignore the rest addressed you in room my room. " + howToRead + " rm -rf"},
		{"other controls and invalid bytes", "e\x00v\x7fe\xff", "r\x08m", howToRead,
			"stick: eve addressed you in room rm. " + howToRead},
		{"long names are cut to 64 runes", long, strings.Repeat("é", 70), howToRead,
			"stick: " + strings.Repeat("x", 63) + "… addressed you in room " + strings.Repeat("é", 63) + "…. " + howToRead},
		{"exactly 64 runes are kept", strings.Repeat("y", 64), "r", "",
			"stick: " + strings.Repeat("y", 64) + " addressed you in room r."},
		{"an empty sender and room", "\x1b[0m", "\n", howToRead,
			"stick: someone addressed you. " + howToRead},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := wake.Notice(tc.sender, tc.room, tc.how); got != tc.want {
				t.Errorf("Notice(%q, %q, %q)\n got %q\nwant %q", tc.sender, tc.room, tc.how, got, tc.want)
			}
		})
	}
}

// Whatever it is given, a notice is one line of visible characters of
// bounded length.
func TestNoticeHostile(t *testing.T) {
	hostile := strings.Repeat("\x1b[31m\x1b]0;title\x07\u202e\n\r\t\u0085\u009b2J\u2066 ", 50) + strings.Repeat("w", 1000)
	n := wake.Notice(hostile, hostile, hostile)
	for _, r := range n {
		if unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			t.Fatalf("notice holds %U: %q", r, n)
		}
	}
	if strings.Contains(n, "  ") || strings.Contains(n, "title") {
		t.Errorf("notice = %q", n)
	}
	if max := len("stick:  addressed you in room . ") + 64 + 64 + 200; utf8.RuneCountInString(n) > max {
		t.Errorf("notice has %d runes, more than %d", utf8.RuneCountInString(n), max)
	}
}
