package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Execute(context.Background(), args, strings.NewReader(""), &out, &errb, "v1.2.3")
	return code, out.String(), errb.String()
}

func TestVersionHelpWhere(t *testing.T) {
	if code, out, _ := run(t, "version"); code != 0 || out != "stick v1.2.3\n" {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, out, _ := run(t, "--version"); code != 0 || out != "stick v1.2.3\n" {
		t.Fatalf("--version: %d %q", code, out)
	}
	if code, out, _ := run(t, "--help"); code != 0 || !strings.Contains(out, "mcp") || !strings.Contains(out, "where") {
		t.Fatalf("help: %d %q", code, out)
	}
	dir := t.TempDir()
	t.Setenv("TALKING_STICK_DATA_DIR", dir)
	if code, out, _ := run(t, "where"); code != 0 || strings.TrimSpace(out) != filepath.Join(dir, "rooms.sqlite") {
		t.Fatalf("where: %d %q", code, out)
	}
	if code, _, errOut := run(t, "frobnicate"); code != 2 || !strings.Contains(errOut, "hint:") {
		t.Fatalf("unknown command: %d %q", code, errOut)
	}
}
