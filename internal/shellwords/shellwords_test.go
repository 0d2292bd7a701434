package shellwords

import (
	"fmt"
	"testing"
)

func TestSplit(t *testing.T) {
	for in, want := range map[string][]string{
		"vi":                          {"vi"},
		"code --wait":                 {"code", "--wait"},
		"  emacs  -nw ":               {"emacs", "-nw"},
		`'/opt/My Editor/ed' -x`:      {"/opt/My Editor/ed", "-x"},
		`"/opt/My Editor/ed" "a\"b"`:  {"/opt/My Editor/ed", `a"b`},
		`/opt/My\ Editor/ed`:          {"/opt/My Editor/ed"},
		`ed ""`:                       {"ed", ""},
		`subl -w --command 'x "y" z'`: {"subl", "-w", "--command", `x "y" z`},
		`ed "$HOME"`:                  {"ed", "$HOME"},
	} {
		got, err := Split(in)
		if err != nil || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Errorf("Split(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`'open`, `"open`, "   "} {
		if got, err := Split(in); err == nil {
			t.Errorf("Split(%q) = %q, want an error", in, got)
		}
	}
}
