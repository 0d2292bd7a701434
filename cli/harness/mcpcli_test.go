package harness

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeBinary writes a script that prints out and exits with code.
func fakeBinary(t *testing.T, out string, code int) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fake")
	script := "#!/bin/sh\ncat <<'EOF'\n" + out + "\nEOF\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestLookups(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		lookup func(context.Context, string) ([]string, bool, error)
		out    string
		code   int
		want   []string
		found  bool
		err    string
	}{
		{"claude user scope", claudeLookup, "stick:\n  Scope: User config (available in all your projects)\n  Status: ✗ Failed to connect\n  Type: stdio\n  Command: /a b/stick\n  Args: mcp\n", 0,
			[]string{"/a b/stick", "mcp"}, true, ""},
		{"claude local scope only", claudeLookup, "stick:\n  Scope: Local config (private to you in this project)\n  Type: stdio\n  Command: /x/stick\n  Args: mcp\n", 0,
			nil, false, ""},
		{"claude missing", claudeLookup, `No MCP server found with name: "stick"`, 1, nil, false, ""},
		{"claude broken", claudeLookup, "Error: config is corrupt", 1, nil, false, "exited with status 1"},
		{"codex transport", codexLookup, `{"name": "stick", "transport": {"type": "stdio", "command": "/x/stick", "args": ["mcp"]}}`, 0,
			[]string{"/x/stick", "mcp"}, true, ""},
		{"codex older output", codexLookup, `{"name": "stick", "command": "/x/stick", "args": ["mcp"]}`, 0,
			[]string{"/x/stick", "mcp"}, true, ""},
		{"codex url server", codexLookup, `{"name": "stick", "transport": {"type": "streamable_http", "url": "http://x"}}`, 0,
			[]string{}, true, ""},
		{"codex missing", codexLookup, "Error: No MCP server named 'stick' found.", 1, nil, false, ""},
		{"codex garbage", codexLookup, "stick\n  command: /x/stick", 0, nil, false, "cannot read the output of 'codex mcp get --json stick'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found, err := tc.lookup(ctx, fakeBinary(t, tc.out, tc.code))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want error %q", err, tc.err)
				}
				return
			}
			if err != nil || found != tc.found || !slices.Equal(got, tc.want) {
				t.Fatalf("got %q %v %v, want %q %v", got, found, err, tc.want, tc.found)
			}
		})
	}
}

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"claude", "mcp", "add", "--", "/a b/stick", "it's", "", "x=1,y@2"})
	if want := `claude mcp add -- '/a b/stick' 'it'\''s' '' x=1,y@2`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
