package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// 'stick mcp --help' and the README register stick with each harness the
// same way, and the same way 'stick install' does.
func TestMCPHelpMatchesREADME(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, help, _ := run(t, "mcp", "--help")
	if code != 0 {
		t.Fatalf("stick mcp --help: exit %d", code)
	}
	row := regexp.MustCompile("(?m)^\\| [^|]+ \\| `((?:claude|codex|gemini) mcp add [^`]+)` \\|")
	rows := row.FindAllStringSubmatch(string(readme), -1)
	if len(rows) != 3 {
		t.Fatalf("the README's registration table has %d harness commands, want 3", len(rows))
	}
	for _, r := range rows {
		if !strings.Contains(help, "  "+r[1]+" ") {
			t.Errorf("stick mcp --help does not register as the README does: %q\n%s", r[1], help)
		}
	}
	if !strings.Contains(help, "stick install opencode") {
		t.Errorf("stick mcp --help does not say how OpenCode is registered:\n%s", help)
	}
}
