package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// 'stick man DIR' writes one roff page per visible command, generated from
// its help, the same bytes on every run with SOURCE_DATE_EPOCH.
func TestManPages(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1795000000")
	dir := filepath.Join(t.TempDir(), "man", "man1")
	code, out, errOut := run(t, "man", dir)
	if code != 0 || !strings.HasPrefix(out, "wrote ") || !strings.Contains(out, "man -M "+filepath.Dir(dir)+" stick") {
		t.Fatalf("stick man: %d %q %q", code, out, errOut)
	}
	var want []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.IsAvailableCommand() && c.HasParent() {
			return
		}
		want = append(want, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot("v1.2.3"))
	for _, name := range want {
		page, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("no page %s: %v", name, err)
		}
		cmdName := strings.TrimSuffix(name, ".1")
		if !strings.HasPrefix(string(page), ".nh\n.TH \"STICK\" \"1\"") || !strings.Contains(string(page), ".SH NAME\n"+cmdName+" - ") {
			t.Fatalf("%s is not the page of %s:\n%.300s", name, cmdName, page)
		}
	}
	if len(want) < 40 {
		t.Fatalf("only %d commands", len(want))
	}
	mustNotExist(t, filepath.Join(dir, "stick-guardian.1"))
	prune := readFile(t, filepath.Join(dir, "stick-rooms-prune.1"))
	if !strings.Contains(prune, `\fB--idle\fP=720h0m0s`) || !strings.Contains(prune, "  stick rooms prune --yes\n") {
		t.Fatalf("stick-rooms-prune.1 lacks its flags or examples:\n%s", prune)
	}

	again := filepath.Join(t.TempDir(), "again")
	if code, _, errOut := run(t, "man", again); code != 0 {
		t.Fatalf("stick man again: %d %q", code, errOut)
	}
	for _, name := range want {
		if readFile(t, filepath.Join(dir, name)) != readFile(t, filepath.Join(again, name)) {
			t.Fatalf("%s differs between two runs", name)
		}
	}
	if code, _, _ := run(t, "man"); code != 2 {
		t.Fatalf("stick man without DIR: exit %d, want 2", code)
	}
}
