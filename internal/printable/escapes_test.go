package printable_test

import (
	"testing"

	"github.com/stickhq/stick/internal/printable"
)

func TestStripEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"before\x1b]0;pwned\x07middle\x1b[2Jafter\x1b[31mred": "beforemiddleafterred",
		"osc52\x1b]52;c;cm0=\x1b\\ end":                       "osc52 end",
		"c1\u009b2Jcsi\u009d0;t\u009c!":                       "c1csi!",
		"dcs\x1bPq#0;2;0;0;0\x1b\\ok":                         "dcsok",
		"keypad\x1b=mode\x1bc":                                "keypadmode",
		"unterminated\x1b]0;title":                            "unterminated",
		"lone\x1b":                                            "lone",
		"plain \u202e text\r\x7f":                             "plain \u202e text\r\x7f",
	} {
		if got := printable.StripEscapes(in); got != want {
			t.Errorf("StripEscapes(%q) = %q, want %q", in, got, want)
		}
	}
}
