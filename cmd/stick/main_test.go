package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestVersionHelpWhere(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "stick ") {
		t.Fatalf("version: %d %q", code, out.String())
	}
	out.Reset()
	if code := run(nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "Usage:") {
		t.Fatalf("help: %d %q", code, out.String())
	}
	dir := t.TempDir()
	t.Setenv("TALKING_STICK_DATA_DIR", dir)
	out.Reset()
	if code := run([]string{"where"}, &out, &errb); code != 0 || strings.TrimSpace(out.String()) != filepath.Join(dir, "rooms.sqlite") {
		t.Fatalf("where: %d %q", code, out.String())
	}
	errb.Reset()
	if code := run([]string{"frobnicate"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "hint:") {
		t.Fatalf("unknown: %d %q", code, errb.String())
	}
}
