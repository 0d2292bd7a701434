//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallWritesOnlyWhatTheUserMayChange: with a home another user
// prepared (as root with that user's HOME), install and install-skill
// write through no link that user planted nor to another user's file,
// replace no dangling link, rewrite no read-only config, and refuse a
// relative HOME; each is a harness_error naming the file, and changes
// nothing.
func TestInstallWritesOnlyWhatTheUserMayChange(t *testing.T) {
	const secretText = `{"secret": "root's"}` + "\n"
	secret := func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "secret.json")
		if err := os.WriteFile(p, []byte(secretText), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	refused := func(t *testing.T, want string, args ...string) {
		t.Helper()
		code, out, errOut := run(t, args...)
		if code != 1 || !strings.Contains(errOut, "harness_error") || !strings.Contains(out+errOut, want) {
			t.Fatalf("%v: %d %q %q, want harness_error saying %q", args, code, out, errOut, want)
		}
	}
	unchanged := func(t *testing.T, path string) {
		t.Helper()
		if b, _ := os.ReadFile(path); string(b) != secretText {
			t.Fatalf("%s was written: %q", path, b)
		}
	}
	asRoot := func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to make a file owned by another user (uid 65534)")
		}
	}
	t.Run("opencode.json linked by another user", func(t *testing.T) {
		asRoot(t)
		m := newMachine(t, "opencode", "stick")
		config := filepath.Join(m.xdg, "opencode", "opencode.json")
		target := secret(t)
		if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, config); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(config, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		refused(t, "owned by uid 65534", "install", "opencode")
		unchanged(t, target)
	})
	t.Run("skill linked to another user's file", func(t *testing.T) {
		asRoot(t)
		m := newMachine(t, "claude")
		path := filepath.Join(m.home, ".claude", "skills", "stick", "SKILL.md")
		target := secret(t)
		if err := os.Chown(target, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		refused(t, "owned by uid 65534", "install-skill", "claude-code")
		unchanged(t, target)
	})
	t.Run("dangling opencode.json", func(t *testing.T) {
		m := newMachine(t, "opencode", "stick")
		config := filepath.Join(m.xdg, "opencode", "opencode.json")
		target := filepath.Join(t.TempDir(), "made-by-stick.json")
		if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, config); err != nil {
			t.Fatal(err)
		}
		refused(t, config+" is a symbolic link to "+target+", which does not exist", "install", "opencode")
		if fi, err := os.Lstat(config); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
		}
		if _, err := os.Lstat(target); !os.IsNotExist(err) {
			t.Fatalf("a file was created through the link: %v", err)
		}
	})
	t.Run("read-only opencode.json", func(t *testing.T) {
		m := newMachine(t, "opencode", "stick")
		config := filepath.Join(m.xdg, "opencode", "opencode.json")
		if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(config, []byte(secretText), 0o444); err != nil {
			t.Fatal(err)
		}
		refused(t, "is read-only", "install", "opencode")
		unchanged(t, config)
	})
	t.Run("relative HOME", func(t *testing.T) {
		m := newMachine(t, "claude")
		_ = m
		cwd := t.TempDir()
		t.Chdir(cwd)
		t.Setenv("HOME", "rel")
		refused(t, "not an absolute path", "install-skill", "claude-code")
		if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
			t.Fatalf("created under the working directory: %v", entries)
		}
	})
}
