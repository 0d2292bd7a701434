package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

func mustRoot(t *testing.T, dir string) string {
	t.Helper()
	got, err := Root(dir)
	if err != nil {
		t.Fatalf("Root(%q): %v", dir, err)
	}
	return got
}

// isolatedBase returns a canonical temp dir with no git work tree or marker
// above it, skipping the test otherwise (markers are only consulted outside
// git work trees, and an outer marker would change "no marker" answers).
func isolatedBase(t *testing.T) string {
	t.Helper()
	base := tempBase(t)
	if top, ok := nearest(base, hasGitEntry); ok {
		t.Skipf("temp dir is inside the git work tree %q", top)
	}
	if top, ok := nearest(base, hasMarker); ok {
		t.Skipf("temp dir is inside the marked workspace %q", top)
	}
	return base
}

func TestRootGitDir(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "repo/.git", "repo/a/b")
	repo := filepath.Join(base, "repo")
	for _, dir := range []string{repo, filepath.Join(repo, "a"), filepath.Join(repo, "a", "b")} {
		if got := mustRoot(t, dir); got != repo {
			t.Errorf("Root(%q) = %q, want %q", dir, got, repo)
		}
	}
}

func TestRootGitFileSubmodule(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "super/.git/modules/sub", "super/sub/src")
	writeFile(t, base, "super/sub/.git", "gitdir: ../.git/modules/sub\n")
	sub := filepath.Join(base, "super", "sub")
	if got := mustRoot(t, filepath.Join(sub, "src")); got != sub {
		t.Errorf("Root(submodule/src) = %q, want submodule top %q", got, sub)
	}
	super := filepath.Join(base, "super")
	if got := mustRoot(t, super); got != super {
		t.Errorf("Root(super) = %q, want %q", got, super)
	}
}

func TestRootGitBeatsDeeperMarker(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "repo/.git", "repo/pkg/src")
	writeFile(t, base, "repo/pkg/package.json", "{}")
	repo := filepath.Join(base, "repo")
	if got := mustRoot(t, filepath.Join(repo, "pkg", "src")); got != repo {
		t.Errorf("Root(repo/pkg/src) = %q, want git top %q over marker dir", got, repo)
	}
}

func TestRootBrokenGitSymlinkIgnored(t *testing.T) {
	base := isolatedBase(t)
	mkdirs(t, base, "proj/inner")
	writeFile(t, base, "proj/go.mod", "module x\n")
	symlinkOrSkip(t, filepath.Join(base, "nowhere"), filepath.Join(base, "proj", "inner", ".git"))
	proj := filepath.Join(base, "proj")
	if got := mustRoot(t, filepath.Join(proj, "inner")); got != proj {
		t.Errorf("Root with broken .git symlink = %q, want marker dir %q", got, proj)
	}
}

func TestRootMarkers(t *testing.T) {
	for _, marker := range Markers() {
		t.Run(marker, func(t *testing.T) {
			base := isolatedBase(t)
			mkdirs(t, base, "proj/deep/er")
			writeFile(t, base, "proj/"+marker, "")
			proj := filepath.Join(base, "proj")
			for _, dir := range []string{proj, filepath.Join(proj, "deep", "er")} {
				if got := mustRoot(t, dir); got != proj {
					t.Errorf("Root(%q) = %q, want %q", dir, got, proj)
				}
			}
		})
	}
}

func TestRootNearestMarkerWins(t *testing.T) {
	base := isolatedBase(t)
	mkdirs(t, base, "outer/inner/x")
	writeFile(t, base, "outer/go.mod", "module outer\n")
	writeFile(t, base, "outer/inner/package.json", "{}")
	inner := filepath.Join(base, "outer", "inner")
	if got := mustRoot(t, filepath.Join(inner, "x")); got != inner {
		t.Errorf("Root = %q, want nearest marker dir %q", got, inner)
	}
}

func TestRootNoMarker(t *testing.T) {
	base := isolatedBase(t)
	mkdirs(t, base, "plain/dir", "dirmarker/go.mod")
	dir := filepath.Join(base, "plain", "dir")
	if got := mustRoot(t, dir); got != dir {
		t.Errorf("Root(%q) = %q, want dir itself", dir, got)
	}
	// A directory that happens to be named like a marker is no marker.
	dm := filepath.Join(base, "dirmarker")
	if got := mustRoot(t, dm); got != dm {
		t.Errorf("Root(%q) = %q, want dir itself", dm, got)
	}
}

func TestRootErrors(t *testing.T) {
	base := tempBase(t)
	file := writeFile(t, base, "f.txt", "x")
	tests := []struct {
		name string
		dir  string
		want []error
	}{
		{"empty", "", []error{ErrEmptyPath}},
		{"relative", "some/dir", []error{ErrInvalidPath}},
		{"nul", base + "\x00", []error{ErrInvalidPath}},
		{"file", file, []error{ErrInvalidPath}},
		{"missing", filepath.Join(base, "missing"), []error{ErrNotFound, fs.ErrNotExist}},
	}
	for _, tt := range tests {
		_, err := Root(tt.dir)
		for _, want := range tt.want {
			if !errors.Is(err, want) {
				t.Errorf("%s: Root(%q) err = %v, want %v", tt.name, tt.dir, err, want)
			}
		}
	}
}

func TestMarkersIsACopy(t *testing.T) {
	want := []string{"CLAUDE.md", "AGENTS.md", "package.json", "pyproject.toml", "Cargo.toml", "go.mod"}
	got := Markers()
	if len(got) != len(want) {
		t.Fatalf("Markers() = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Markers() = %q, want %q", got, want)
		}
	}
	got[0] = "changed"
	if Markers()[0] != want[0] {
		t.Errorf("changing the returned slice changed Markers()")
	}
}
