package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"
)

func TestConfigValue(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
		ok                 bool
	}{
		{"plain", "[remote \"origin\"]\n\turl = https://github.com/acme/api.git\n", "https://github.com/acme/api.git", true},
		{"first of several", "[remote \"origin\"]\n\turl = a\n\turl = b\n", "a", true},
		{"other remotes first", "[remote \"upstream\"]\n\turl = up\n[remote \"origin\"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\turl = mine\n", "mine", true},
		{"names ignore case", "[Remote \"origin\"]\n\tURL = x\n", "x", true},
		{"subsections do not", "[remote \"Origin\"]\n\turl = x\n", "", false},
		{"old form", "[remote.Origin]\n\turl = x\n", "x", true},
		{"quoted", "[remote \"origin\"]\n\turl = \"https://h/a b.git\" # a comment\n", "https://h/a b.git", true},
		{"comments", "# [remote \"origin\"]\n; url = no\n[remote \"origin\"]\n\turl = yes ; trailing\n", "yes", true},
		{"escapes", "[remote \"origin\"]\n\turl = a\\\\b\\\"c\n", "a\\b\"c", true},
		{"continued", "[remote \"origin\"]\n\turl = https://h/\\\nacme/api\n", "https://h/acme/api", true},
		{"same line", "[remote \"origin\"] url = x\n", "x", true},
		{"crlf", "[remote \"origin\"]\r\n\turl = x\r\n", "x", true},
		{"escaped subsection", "[remote \"or\\\"igin\"]\n\turl = x\n[remote \"origin\"]\n\turl = y\n", "y", true},
		{"no origin", "[core]\n\tbare = false\n", "", false},
		{"empty", "", "", false},
		{"broken header", "[remote \"origin\"\n\turl = x\n", "", false},
		{"bad escape", "[remote \"origin\"]\n\turl = a\\qb\n", "", false},
		{"open quote", "[remote \"origin\"]\n\turl = \"abc\n", "", false},
	} {
		got, ok := configValue([]byte(tc.config), "remote", "origin", "url")
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: configValue = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// Two real clones of one repository whose origins are written in two forms
// get one key; without an origin the key is local.
func TestKeyOfClones(t *testing.T) {
	src := testkit.GitSource(t)
	https := testkit.GitClone(t, src, "https://github.com/acme/api.git")
	scp := testkit.GitClone(t, src, "git@github.com:acme/api.git")
	bare := testkit.GitClone(t, src, "")
	l := Local{HostID: "h1"}
	for _, dir := range []string{https, scp} {
		if got := l.Key(canon(t, dir)); got != "github.com/acme/api" {
			t.Errorf("Key(%s) = %q, want github.com/acme/api", dir, got)
		}
	}
	if got, want := l.Key(canon(t, bare)), LocalKey("h1", canon(t, bare)); got != want {
		t.Errorf("Key of a clone without origin = %q, want %q", got, want)
	}
	// An origin that is a path on this host gives a local key.
	withPath := testkit.GitClone(t, src, src)
	if got := l.Key(canon(t, withPath)); !IsLocalKey(got) {
		t.Errorf("Key of a clone whose origin is a local path = %q, want a local key", got)
	}
}

// A room below the top level carries its path inside the repository.
func TestKeyNested(t *testing.T) {
	src := testkit.GitSource(t)
	clone := testkit.GitClone(t, src, "https://gitlab.com/acme/platform/api.git")
	billing := filepath.Join(clone, "services", "Billing")
	if err := os.MkdirAll(billing, 0o755); err != nil {
		t.Fatal(err)
	}
	l := Local{HostID: "h1"}
	if got := l.Key(canon(t, billing)); got != "gitlab.com/acme/platform/api/-/services/billing" {
		t.Errorf("Key(services/Billing) = %q", got)
	}
}

// Linked worktrees share their repository's config through commondir, and
// a submodule has its own, in its superproject's git directory.
func TestKeyWorktreeAndSubmodule(t *testing.T) {
	src := testkit.GitSource(t)
	clone := testkit.GitClone(t, src, "ssh://git@github.com:22/acme/api.git")
	wt := filepath.Join(t.TempDir(), "wt")
	testkit.Git(t, clone, "worktree", "add", "-q", wt)
	if info, err := os.Lstat(filepath.Join(wt, ".git")); err != nil || !info.Mode().IsRegular() {
		t.Fatalf("the worktree's .git is no file: %v", err)
	}
	l := Local{HostID: "h1"}
	if got := l.Key(canon(t, wt)); got != "github.com/acme/api" {
		t.Errorf("Key(worktree) = %q, want github.com/acme/api", got)
	}

	lib := testkit.GitSource(t)
	testkit.Git(t, clone, "submodule", "add", "-q", lib, "vendor/lib")
	sub := filepath.Join(clone, "vendor", "lib")
	testkit.Git(t, sub, "remote", "set-url", "origin", "https://github.com/acme/lib")
	if got := l.Key(canon(t, sub)); got != "github.com/acme/lib" {
		t.Errorf("Key(submodule) = %q, want github.com/acme/lib", got)
	}
	if got := l.Key(canon(t, filepath.Join(clone, "vendor"))); got != "github.com/acme/api/-/vendor" {
		t.Errorf("Key(vendor) = %q, want github.com/acme/api/-/vendor", got)
	}
}

// Odd repositories fall back to the local key, without waiting or failing.
func TestKeyFallsBack(t *testing.T) {
	base := tempBase(t)
	l := Local{HostID: "h1"}
	cases := map[string]func(dir string){
		"no git":         func(string) {},
		"empty git dir":  func(dir string) { mkdirs(t, dir, ".git") },
		"empty git file": func(dir string) { writeFile(t, dir, ".git", "") },
		"git file to nowhere": func(dir string) {
			writeFile(t, dir, ".git", "gitdir: ../nowhere\n")
		},
		"config is a directory": func(dir string) { mkdirs(t, dir, ".git/config") },
		"unreadable config": func(dir string) {
			writeFile(t, dir, ".git/config", "[remote \"origin\"]\n\turl = \"open\n")
		},
		"helper remote": func(dir string) {
			writeFile(t, dir, ".git/config", "[remote \"origin\"]\n\turl = codecommit::eu-west-1://api\n")
		},
		"huge config": func(dir string) {
			writeFile(t, dir, ".git/config", "[remote \"origin\"]\n\turl = https://h/a\n"+strings.Repeat("#", maxGitFile))
		},
	}
	for name, setup := range cases {
		dir := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
		writeFile(t, dir, "go.mod", "module x\n")
		setup(dir)
		wantLocalKey(t, name, l, dir)
	}
	gone := filepath.Join(base, "gone")
	if got := l.Key(gone); got != LocalKey("h1", gone) {
		t.Errorf("Key of a missing directory = %q", got)
	}
}

// A git file names its git directory relative to the work tree, or
// absolutely.
func TestKeyGitFile(t *testing.T) {
	base := tempBase(t)
	writeFile(t, base, "store/api.git/config", "[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n")
	writeFile(t, base, "rel/.git", "gitdir: ../store/api.git\n")
	writeFile(t, base, "abs/.git", "gitdir: "+filepath.Join(base, "store", "api.git")+"\n")
	l := Local{}
	for _, d := range []string{"rel", "abs"} {
		if got := l.Key(canon(t, filepath.Join(base, d))); got != "github.com/acme/api" {
			t.Errorf("Key(%s) = %q", d, got)
		}
	}
	if got := l.Key(canon(t, filepath.Join(base, "store"))); got != LocalKey(UnknownHost, canon(t, filepath.Join(base, "store"))) {
		t.Errorf("Key without a host id = %q", got)
	}
}

// wantLocalKey checks that l keys dir locally, within seconds.
func wantLocalKey(t *testing.T, name string, l Local, dir string) {
	t.Helper()
	done := make(chan string, 1)
	go func() { done <- l.Key(canon(t, dir)) }()
	select {
	case got := <-done:
		if want := LocalKey(l.HostID, canon(t, dir)); got != want {
			t.Errorf("%s: Key = %q, want %q", name, got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: Key hangs", name)
	}
}

func canon(t *testing.T, p string) string {
	t.Helper()
	c, err := Canonical(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
