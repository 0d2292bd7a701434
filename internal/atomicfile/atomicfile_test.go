package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// The atomic writer keeps the file's mode and writes through a symbolic link.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if err := os.WriteFile(real, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", err, fi.Mode())
	}
	b, _ := os.ReadFile(real)
	fi, _ = os.Stat(real)
	if string(b) != `{"a": 1}` || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%q %v", b, fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("a temporary file was left behind: %v", entries)
	}
	fresh := filepath.Join(dir, "new.json")
	if err := WriteFile(fresh, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file mode %v", fi.Mode())
	}
}
