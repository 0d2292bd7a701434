package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A home directory kept in git (dotfiles) or holding an agent instruction
// file marks no project: it is passed over, and a plain directory below
// it is its own root.
func TestLocatePassesOverHome(t *testing.T) {
	home := filepath.Join(isolatedBase(t), "home")
	mkdirs(t, home, ".git", "notes/today", "proj/cmd")
	writeFile(t, home, "AGENTS.md", "be nice\n")
	writeFile(t, home, "proj/go.mod", "module proj\n")
	t.Setenv("HOME", home)

	today := filepath.Join(home, "notes", "today")
	c, err := Locate(today)
	if err != nil {
		t.Fatal(err)
	}
	if c.Root != today || c.How != HowPath || c.Refused != "" || len(c.Passed) != 2 ||
		c.Passed[0] != (Candidate{Dir: home, How: HowGit, Why: "it is your home directory"}) ||
		c.Passed[1] != (Candidate{Dir: home, How: HowMarker, Marker: "AGENTS.md", Why: "it is your home directory"}) {
		t.Errorf("Locate(%q) = %+v", today, c)
	}
	want := "no git work tree and no marker file (CLAUDE.md, AGENTS.md, package.json, pyproject.toml, Cargo.toml, go.mod): the path itself, " + today + "\n" +
		"passed over a git top level at " + home + ": it is your home directory\n" +
		"passed over marker AGENTS.md at " + home + ": it is your home directory"
	if got := c.Explain(); got != want {
		t.Errorf("Explain:\n%s\nwant:\n%s", got, want)
	}

	// A marker below the home directory still wins over the path.
	proj := filepath.Join(home, "proj")
	if c := mustLocate(t, filepath.Join(proj, "cmd")); c.Root != proj || c.How != HowMarker || c.Marker != "go.mod" || c.Refused != "" ||
		c.Explain() != "no git work tree; marker go.mod found at "+proj+"\npassed over a git top level at "+home+": it is your home directory" {
		t.Errorf("Locate(proj/cmd) = %+v\n%s", c, c.Explain())
	}

	// The home directory itself is its own root, refused.
	c = mustLocate(t, home)
	if c.Root != home || c.How != HowPath || c.Refused != home+" is your home directory" ||
		!strings.HasSuffix(c.Explain(), "\nrefused: "+home+" is your home directory; joining here creates no room") {
		t.Errorf("Locate(home) = %+v\n%s", c, c.Explain())
	}
	if got := Refusal(home); got != home+" is your home directory" {
		t.Errorf("Refusal(home) = %q", got)
	}
	if got := Refusal(today); got != "" {
		t.Errorf("Refusal(%q) = %q, want none", today, got)
	}
}

// The filesystem root and a top-level directory that is no project are
// refused; a plain directory deeper down (a test's temporary directory) is
// its own root, as before.
func TestLocateRefusesTopLevel(t *testing.T) {
	t.Setenv("HOME", "")
	root := string(filepath.Separator)
	if c := mustLocate(t, root); c.Root != root || c.Refused != root+" is the filesystem root" {
		t.Errorf("Locate(/) = %+v", c)
	}
	if _, err := os.Stat("/etc"); err == nil && !hasGitEntry("/etc") && !hasMarker("/etc") && !hasGitEntry(root) && !hasMarker(root) {
		if c := mustLocate(t, "/etc"); c.Root != "/etc" || c.How != HowPath || c.Refused != "/etc is a top-level system directory" ||
			c.Explain() != "no git work tree and no marker file (CLAUDE.md, AGENTS.md, package.json, pyproject.toml, Cargo.toml, go.mod): the path itself, /etc\n"+
				"refused: /etc is a top-level system directory; joining here creates no room" {
			t.Errorf("Locate(/etc) = %+v\n%s", c, c.Explain())
		}
	}
	plain := filepath.Join(isolatedBase(t), "plain")
	mkdirs(t, plain, ".")
	if c := mustLocate(t, plain); c.Root != plain || c.How != HowPath || c.Refused != "" || len(c.Passed) != 0 {
		t.Errorf("Locate(%q) = %+v", plain, c)
	}
	// A top-level directory that is a project (a container's /app) is fit;
	// the filesystem root and the home directory never are.
	for _, tc := range []struct {
		dir, home string
		project   bool
		want      string
	}{
		{"/app", "", true, ""},
		{"/app", "", false, "it is a top-level system directory"},
		{"/", "", true, "it is the filesystem root"},
		{"/home/ana", "/home/ana", true, "it is your home directory"},
		{"/home/ana/src", "/home/ana", false, ""},
	} {
		if got := unfit(filepath.FromSlash(tc.dir), filepath.FromSlash(tc.home), tc.project); got != tc.want {
			t.Errorf("unfit(%q, home %q, project %v) = %q, want %q", tc.dir, tc.home, tc.project, got, tc.want)
		}
	}
}

func mustLocate(t *testing.T, dir string) Choice {
	t.Helper()
	c, err := Locate(dir)
	if err != nil {
		t.Fatalf("Locate(%q): %v", dir, err)
	}
	return c
}
