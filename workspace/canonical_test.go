package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tempBase returns a fresh temporary directory in canonical form. t.TempDir
// may sit behind a symlink (macOS /var -> /private/var), so the expectation
// is built from EvalSymlinks, folded only where the filesystem ignores case.
func tempBase(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatalf("EvalSymlinks(%q): %v", dir, err)
	}
	got, err := Canonical(dir)
	if err != nil {
		t.Fatalf("Canonical(%q): %v", dir, err)
	}
	if got != real && !strings.EqualFold(got, real) {
		t.Fatalf("Canonical(%q) = %q, want %q (up to case)", dir, got, real)
	}
	return got
}

// mkdirs creates each slash-separated directory path under base.
func mkdirs(t *testing.T, base string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(base, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// writeFile creates the slash-separated file path under base with content.
func writeFile(t *testing.T, base, name, content string) string {
	t.Helper()
	p := filepath.Join(base, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// symlinkOrSkip creates a symlink or skips the test where that is not
// allowed (Windows without developer mode).
func symlinkOrSkip(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func mustCanonical(t *testing.T, path string) string {
	t.Helper()
	got, err := Canonical(path)
	if err != nil {
		t.Fatalf("Canonical(%q): %v", path, err)
	}
	return got
}

func TestCanonicalDirectory(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "a/b")
	want := filepath.Join(base, "a", "b")
	if got := mustCanonical(t, want); got != want {
		t.Errorf("Canonical(dir) = %q, want %q", got, want)
	}
}

func TestCanonicalFileMeansParent(t *testing.T) {
	base := tempBase(t)
	file := writeFile(t, base, "a/notes.txt", "x")
	want := filepath.Join(base, "a")
	if got := mustCanonical(t, file); got != want {
		t.Errorf("Canonical(file) = %q, want %q", got, want)
	}
}

func TestCanonicalResolvesSymlinkedDir(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "real/sub")
	link := filepath.Join(base, "link")
	symlinkOrSkip(t, filepath.Join(base, "real"), link)
	want := filepath.Join(base, "real", "sub")
	if got := mustCanonical(t, filepath.Join(link, "sub")); got != want {
		t.Errorf("Canonical(via symlink) = %q, want %q", got, want)
	}
}

func TestCanonicalResolvesSymlinkedFile(t *testing.T) {
	base := tempBase(t)
	file := writeFile(t, base, "real/f.txt", "x")
	mkdirs(t, base, "other")
	link := filepath.Join(base, "other", "f.txt")
	symlinkOrSkip(t, file, link)
	want := filepath.Join(base, "real")
	if got := mustCanonical(t, link); got != want {
		t.Errorf("Canonical(file symlink) = %q, want %q", got, want)
	}
}

func TestCanonicalCleansSeparators(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "a/b", "c")
	want := filepath.Join(base, "a", "b")
	sep := string(filepath.Separator)
	for _, in := range []string{
		base + sep + "a" + sep + sep + "b",
		base + sep + "a" + sep + "b" + sep,
		base + sep + "c" + sep + ".." + sep + "a" + sep + "." + sep + "b",
		filepath.ToSlash(base) + "/a/b", // forward slashes, accepted on Windows too
	} {
		if got := mustCanonical(t, in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCanonicalRelative(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "a/b")
	t.Chdir(base)
	want := filepath.Join(base, "a", "b")
	for _, in := range []string{"a/b", "./a/b", "a/b/../b"} {
		if got := mustCanonical(t, in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mustCanonical(t, "."); got != base {
		t.Errorf("Canonical(.) = %q, want %q", got, base)
	}
}

func TestCanonicalIdempotent(t *testing.T) {
	base := tempBase(t)
	file := writeFile(t, base, "Mixed/Case/f.txt", "x")
	once := mustCanonical(t, file)
	if twice := mustCanonical(t, once); twice != once {
		t.Errorf("Canonical not idempotent: %q then %q", once, twice)
	}
}

func TestCanonicalCaseSpellings(t *testing.T) {
	base := tempBase(t)
	mkdirs(t, base, "MixedCase")
	upper := filepath.Join(base, "MixedCase")
	lower := filepath.Join(base, "mixedcase")
	got := mustCanonical(t, upper)
	if insensitive, _ := probeCase(base, "MixedCase"); insensitive {
		if got != lower {
			t.Errorf("Canonical(%q) = %q on a case-insensitive filesystem, want %q", upper, got, lower)
		}
		if other := mustCanonical(t, lower); other != got {
			t.Errorf("two spellings differ: %q vs %q", got, other)
		}
		return
	}
	if got != upper {
		t.Errorf("Canonical(%q) = %q on a case-sensitive filesystem, want it unchanged", upper, got)
	}
}

func TestCanonicalErrors(t *testing.T) {
	base := tempBase(t)
	file := writeFile(t, base, "f.txt", "x")

	_, err := Canonical(filepath.Join(base, "missing", "deeper"))
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrNotFound) {
		t.Errorf("missing path: err = %v, want ErrNotFound and fs.ErrNotExist", err)
	}

	_, err = Canonical("")
	if !errors.Is(err, ErrEmptyPath) || !strings.Contains(err.Error(), "pass a directory or file path") {
		t.Errorf("empty path: err = %v, want ErrEmptyPath with guidance", err)
	}

	_, err = Canonical(base + "\x00x")
	if !errors.Is(err, ErrInvalidPath) {
		t.Errorf("NUL byte: err = %v, want ErrInvalidPath", err)
	}

	// A path below a regular file does not exist either, though the
	// system may report it as "not a directory".
	if _, err = Canonical(filepath.Join(file, "below")); err == nil {
		t.Errorf("path below a file: want an error")
	}
}
