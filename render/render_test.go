package render_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stickhq/stick/render"
)

func TestLineAndText(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"plain ascii", "plain ascii", "plain ascii"},
		{"Grüße, 日本語, emoji 👩‍💻 ok", "Grüße, 日本語, emoji 👩‍💻 ok", "Grüße, 日本語, emoji 👩‍💻 ok"},
		{"a\tb\nc", `a\tb\nc`, "a\tb\nc"},
		{"clear\x1b[2J\x1b[H", `clear\x1b[2J\x1b[H`, `clear\x1b[2J\x1b[H`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`, `\x1b]0;title\x07`},
		{"\x1b]52;c;cm0gLXJm\x1b\\", `\x1b]52;c;cm0gLXJm\x1b\`, `\x1b]52;c;cm0gLXJm\x1b\`},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", `\x1b]8;;http://x\x1b\link\x1b]8;;\x1b\`, `\x1b]8;;http://x\x1b\link\x1b]8;;\x1b\`},
		{"c1 \u009b2J \u0085", `c1 \u009b2J \u0085`, `c1 \u009b2J \u0085`},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"crlf\r\nend", `crlf\r\nend`, "crlf\nend"},
		{"bs\b del\x7f nul\x00", `bs\x08 del\x7f nul\x00`, `bs\x08 del\x7f nul\x00`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200f", `bidi \u202eevil\u202c \u2066x\u2069 \u200f`, `bidi \u202eevil\u202c \u2066x\u2069 \u200f`},
		{"sep\u2028x", `sep\u2028x`, `sep\u2028x`},
		{"bad \xff\x9b utf8", `bad \xff\x9b utf8`, `bad \xff\x9b utf8`},
		{`back\slash`, `back\slash`, `back\slash`},
	} {
		if got := render.Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := render.Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
		if render.Line(render.Line(c.in)) != render.Line(c.in) || render.Text(render.Text(c.in)) != render.Text(c.in) {
			t.Errorf("rendering %q twice changes it", c.in)
		}
	}
}

// Whatever the input, Line prints no control character at all and Text none
// but newline and tab, both give valid UTF-8, both leave their own output
// as it is, and text with nothing to make safe passes unchanged.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb\tc", "\x1b]52;c;eA==\x07", "\u009b2J", "x\r\ny", "\u202eabc", "\xff\xfe", "👩‍💻 Grüße"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line, text := render.Line(s), render.Text(s)
		for _, c := range []struct {
			name, out string
			keep      string
		}{{"Line", line, ""}, {"Text", text, "\n\t"}} {
			if !utf8.ValidString(c.out) {
				t.Fatalf("%s(%q) = %q, not valid UTF-8", c.name, s, c.out)
			}
			for _, r := range c.out {
				if (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == 0x2028 || r == 0x2029) && !strings.ContainsRune(c.keep, r) {
					t.Fatalf("%s(%q) = %q keeps %U", c.name, s, c.out, r)
				}
			}
		}
		if render.Line(line) != line || render.Text(text) != text {
			t.Fatalf("rendering %q twice changes it", s)
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == 0x2028 || r == 0x2029
		}) && line != s {
			t.Fatalf("Line(%q) = %q changes text with nothing to make safe", s, line)
		}
	})
}
