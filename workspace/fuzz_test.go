package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// FuzzCanonical feeds arbitrary strings to Canonical, both as given
// (relative to the working directory) and joined under a small temporary
// tree with a symlink, checking that it never panics and that every
// success is absolute, clean and a fixed point.
func FuzzCanonical(f *testing.F) {
	dir := f.TempDir()
	for _, d := range []string{"A/b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "A", "b", "file.txt"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	_ = os.Symlink(filepath.Join(dir, "A"), filepath.Join(dir, "link")) // optional

	for _, seed := range []string{"", ".", "A/b", "A//b/../b/", "link/b/file.txt", "c/../A", "missing", "\x00", "/"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, in := range []string{s, filepath.Join(dir, s)} {
			got, err := Canonical(in)
			if err != nil {
				continue
			}
			if !filepath.IsAbs(got) {
				t.Fatalf("Canonical(%q) = %q, not absolute", in, got)
			}
			if filepath.Clean(got) != got {
				t.Fatalf("Canonical(%q) = %q, not clean", in, got)
			}
			if volatile(got) {
				continue
			}
			again, err := Canonical(got)
			if err != nil {
				t.Fatalf("Canonical(%q) = %q, which then fails: %v", in, got, err)
			}
			if again != got {
				t.Fatalf("Canonical(%q) = %q, but Canonical of that = %q", in, got, again)
			}
		}
	})
}

// volatile reports whether p is under procfs, whose entries (processes,
// threads, file descriptors) can vanish between two calls.
func volatile(p string) bool {
	return runtime.GOOS == "linux" && (p == "/proc" || strings.HasPrefix(p, "/proc/"))
}

// FuzzAncestors checks Ancestors against an independent component-wise
// oracle: when path is root or below it the chain runs from path to root
// one component at a time, every element being an ancestor-or-self of path;
// otherwise the result is just path.
func FuzzAncestors(f *testing.F) {
	for _, seed := range [][2]string{
		{"/repo/a/b", "/repo"},
		{"/repo2/x", "/repo"},
		{"/a", "/"},
		{"/", "/"},
		{"rel/a", "rel"},
		{"/repo//a/../b/", "/repo/"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, path, root string) {
		got := Ancestors(path, root)
		under, depth := oracleUnder(path, root)
		if !under {
			if len(got) != 1 || got[0] != path {
				t.Fatalf("Ancestors(%q, %q) = %q, want just the path", path, root, got)
			}
			return
		}
		if len(got) != depth+1 {
			t.Fatalf("Ancestors(%q, %q) = %q, want %d elements", path, root, got, depth+1)
		}
		p := filepath.Clean(path)
		if got[0] != p {
			t.Fatalf("Ancestors(%q, %q)[0] = %q, want %q", path, root, got[0], p)
		}
		for i, e := range got {
			if ok, _ := oracleUnder(p, e); !ok {
				t.Fatalf("Ancestors(%q, %q)[%d] = %q is not an ancestor of %q", path, root, i, e, p)
			}
		}
		if last, r := got[len(got)-1], filepath.Clean(root); last != r && last != r+string(filepath.Separator) {
			t.Fatalf("Ancestors(%q, %q) ends at %q, want root %q", path, root, last, r)
		}
	})
}

// oracleUnder reports whether the absolute path is root or below it by
// comparing volumes and cleaned components, and how many components deeper
// than root it is.
func oracleUnder(path, root string) (under bool, depth int) {
	if !filepath.IsAbs(path) || !filepath.IsAbs(root) {
		return false, 0
	}
	pv, pc := components(path)
	rv, rc := components(root)
	if pv != rv || len(rc) > len(pc) {
		return false, 0
	}
	for i := range rc {
		if rc[i] != pc[i] {
			return false, 0
		}
	}
	return true, len(pc) - len(rc)
}

// components splits a cleaned path into its volume name and the non-empty
// names after it.
func components(p string) (vol string, names []string) {
	p = filepath.Clean(p)
	vol = filepath.VolumeName(p)
	for _, n := range strings.Split(p[len(vol):], string(filepath.Separator)) {
		if n != "" {
			names = append(names, n)
		}
	}
	return vol, names
}
