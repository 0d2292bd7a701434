package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Git runs git with args in dir and returns its standard output, trimmed;
// it fails tb when git fails and skips it when git is not installed. git
// reads neither the user's nor the system's configuration, so tests see
// the same git everywhere, and may clone from local paths (submodules).
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		tb.Skip("git is not installed")
	}
	args = append([]string{"-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main", "-c", "advice.detachedHead=false"}, args...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=stick test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=stick test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out))
}

// GitSource returns a new git repository, in a temporary directory with
// symlinks resolved, holding one commit, to clone from.
func GitSource(tb testing.TB) string {
	tb.Helper()
	dir := tempDir(tb)
	Git(tb, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# api\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	Git(tb, dir, "add", "README.md")
	Git(tb, dir, "commit", "-q", "-m", "first")
	return dir
}

// GitClone clones src into a new temporary directory with git clone and
// sets the clone's origin to origin, as written (pass "" to remove it), so
// a test can give clones of one repository its URL in several forms. It
// returns the clone's top level, symlinks resolved.
func GitClone(tb testing.TB, src, origin string) string {
	tb.Helper()
	dir := filepath.Join(tempDir(tb), "clone")
	Git(tb, filepath.Dir(dir), "clone", "-q", src, dir)
	if origin == "" {
		Git(tb, dir, "remote", "remove", "origin")
	} else {
		Git(tb, dir, "remote", "set-url", "origin", origin)
	}
	return dir
}

func tempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}
