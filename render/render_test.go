package render_test

import (
	"testing"

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
