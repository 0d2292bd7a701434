package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "repo/.git")
	file := writeFile(t, base, "repo/sub/main.go", "package main\n")
	got, err := Resolve(file)
	if err != nil {
		t.Fatal(err)
	}
	want := Resolution{Path: filepath.Join(base, "repo", "sub"), Choice: Choice{Root: filepath.Join(base, "repo"), How: HowGit}}
	if got.Path != want.Path || got.Root != want.Root || got.How != want.How || got.Refused != "" || len(got.Passed) != 0 {
		t.Errorf("Resolve(%q) = %+v, want %+v", file, got, want)
	}

	if _, err := Resolve(filepath.Join(base, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Resolve(missing) err = %v, want fs.ErrNotExist", err)
	}
	if _, err := Resolve(""); !errors.Is(err, ErrEmptyPath) {
		t.Errorf("Resolve(\"\") err = %v, want ErrEmptyPath", err)
	}
}
