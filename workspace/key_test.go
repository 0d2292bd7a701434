package workspace

import (
	"errors"
	"strings"
	"testing"
	"unicode"
)

// Every way a remote URL of one repository can be written gives one key.
func TestRemoteKeyForms(t *testing.T) {
	for _, u := range []string{
		"https://github.com/acme/api.git",
		"https://github.com/acme/api",
		"https://github.com/acme/api/",
		"https://github.com/acme/api.git/",
		"http://github.com/acme/api.git",
		"HTTPS://GitHub.com/acme/api.git",
		"https://github.com:443/acme/api.git",
		"https://ana@github.com/acme/api.git",
		"https://ana:s3cret@github.com/acme/api.git",
		"https://x-access-token:ghp_token@github.com/acme/api.git",
		"https://github.com/acme/api.git?ref=main",
		"https://github.com/acme/api.git#main",
		"https://github.com./acme/api.git",
		"git@github.com:acme/api.git",
		"git@github.com:acme/api",
		"git@github.com:/acme/api.git",
		"github.com:acme/api.git",
		"git@GITHUB.COM:acme/api.git/",
		"ssh://git@github.com/acme/api.git",
		"ssh://git@github.com:22/acme/api",
		"ssh://github.com/acme/api",
		"SSH://git@github.com:2222/acme/api.git",
		"git+ssh://git@github.com/acme/api.git",
		"ssh+git://git@github.com/acme/api.git",
		"git://github.com/acme/api.git",
		"git://github.com/acme/api",
		"  https://github.com/acme/api.git\n",
		"https://github.com/acme//api.git",
		"https://github.com/acme/./api.git",
	} {
		got, err := RemoteKey(u)
		if err != nil || got != "github.com/acme/api" {
			t.Errorf("RemoteKey(%q) = %q, %v; want github.com/acme/api", u, got, err)
		}
	}
}

func TestRemoteKeyOthers(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		// Nested groups keep every segment.
		{"https://gitlab.com/acme/platform/api.git", "gitlab.com/acme/platform/api"},
		{"git@gitlab.com:acme/platform/api.git", "gitlab.com/acme/platform/api"},
		// Hosting services that ignore a path's letter case fold it, so
		// URLs typed differently give one key; other hosts keep it.
		{"https://GitHub.com/Acme/API.git", "github.com/acme/api"},
		{"git@gitlab.com:Acme/Platform/API.git", "gitlab.com/acme/platform/api"},
		{"https://bitbucket.org/Acme/API", "bitbucket.org/acme/api"},
		{"https://codeberg.org/Acme/API", "codeberg.org/acme/api"},
		{"https://git.example.org/Acme/API.git", "git.example.org/Acme/API"},
		// A self-hosted server with a port, and a home-relative path.
		{"ssh://git@git.example.org:2222/srv/repos/api.git", "git.example.org/srv/repos/api"},
		{"ana@git.example.org:~ana/api.git", "git.example.org/~ana/api"},
		// IPv6 hosts keep their brackets.
		{"ssh://git@[fe80::1]:22/acme/api.git", "[fe80::1]/acme/api"},
		{"git@[fe80::1]:acme/api.git", "[fe80::1]/acme/api"},
		// Percent-escapes are read.
		{"https://example.com/acme/my%20api.git", "example.com/acme/my api"},
		// Azure DevOps: a user before the host, segments after.
		{"https://acme@dev.azure.com/acme/project/_git/api", "dev.azure.com/acme/project/_git/api"},
		// Every .git is dropped, so a key read back as a URL is the same key.
		{"https://example.com/acme/api.git.git", "example.com/acme/api"},
		{"https://example.com/acme/api.git/.git/", "example.com/acme/api"},
		// A helper-free scheme not known to git is still a URL.
		{"persistent-https://example.com/acme/api", "example.com/acme/api"},
	} {
		got, err := RemoteKey(tc.url)
		if err != nil || got != tc.want {
			t.Errorf("RemoteKey(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
}

// Remotes other hosts cannot reach the same way, and malformed ones, give
// no repository key.
func TestRemoteKeyRefused(t *testing.T) {
	for _, u := range []string{
		"",
		"   ",
		"/srv/git/api.git",
		"../api",
		"./api",
		"api",
		`C:\repos\api`,
		"C:/repos/api",
		`\\server\share\api.git`,
		"file:///srv/git/api.git",
		"FILE:///C:/repos/api",
		"codecommit::us-east-1://api",
		"https://github.com",
		"https://github.com/",
		"https://github.com/.git",
		"git@github.com:",
		"git@github.com:/",
		"https:///acme/api",
		"https://github.com/../api",
		"https://github.com/acme/api\n/x",
		"https://github.com/acme/\x1b[31mapi",
		"https://github.com/acme/api%0a",
		"https://github.com/acme/-/api",
		"https://github.com/acme/a%2523b", // escaped twice
		"https://github.com/acme/a%23b",   // an escaped fragment
		"github.com:acme/a%3Fb",           // an escaped query
		"ssh://git@github.com:acme/api",
		"https://ana:pa/ss@github.com/acme/api",
		"https://ana:123/s3cret@github.com/acme/api",
		"ana:s3cret@github.com:acme/api",
		"https://github.com/acme/\xff",
		"https://" + strings.Repeat("a", MaxKeyLen) + "/x",
	} {
		got, err := RemoteKey(u)
		if !errors.Is(err, ErrNoRemoteKey) {
			t.Errorf("RemoteKey(%q) = %q, %v; want ErrNoRemoteKey", u, got, err)
		}
	}
}

// No key and no error keeps a credential written in a URL.
func TestRemoteKeyDropsCredentials(t *testing.T) {
	for _, u := range []string{
		"https://ana:s3cret@github.com/acme/api.git",
		"https://s3cret@github.com/acme/api.git",
		"https://oauth2:s3cret@gitlab.com/acme/api.git",
		"ssh://ana:s3cret@github.com:22/acme/api.git",
		"https://ana:s3c@ret@github.com/acme/api.git",
		"https://github.com/acme/api.git?access_token=s3cret",
		"https://ana:pa/s3cret@github.com/acme/api",
		"https://ana:123/s3cret@github.com/acme/api",
		"ana:s3cret@github.com:acme/api",
		"s3cret@github.com:acme/api",
		"https://ana:s3cret@github.com",
	} {
		key, err := RemoteKey(u)
		if strings.Contains(key, "s3c") || err != nil && strings.Contains(err.Error(), "s3c") {
			t.Errorf("RemoteKey(%q) = %q, %v: keeps the credential", u, key, err)
		}
	}
}

func TestRepoKey(t *testing.T) {
	for _, tc := range []struct{ remote, sub, want string }{
		{"github.com/acme/api", "", "github.com/acme/api"},
		{"github.com/acme/api", ".", "github.com/acme/api"},
		{"github.com/acme/api", "services", "github.com/acme/api/-/services"},
		{"gitlab.com/acme/api", "services/billing", "gitlab.com/acme/api/-/services/billing"},
		{"github.com/acme/api", "/services/billing/", "github.com/acme/api/-/services/billing"},
		// Letter case of the path inside the repository is folded, as a
		// case-insensitive host folds it in canonical paths.
		{"github.com/Acme/API", "Services/Billing", "github.com/Acme/API/-/services/billing"},
	} {
		if got := RepoKey(tc.remote, tc.sub); got != tc.want {
			t.Errorf("RepoKey(%q, %q) = %q, want %q", tc.remote, tc.sub, got, tc.want)
		}
	}
	// A nested group's repository and a room in a shallower repository
	// never share a key.
	deep, _ := RemoteKey("https://gitlab.com/acme/api/services.git")
	if nested := RepoKey("gitlab.com/acme/api", "services"); deep == nested {
		t.Errorf("gitlab.com/acme/api/services and the room services of acme/api share the key %q", deep)
	}
}

func TestLocalKey(t *testing.T) {
	for _, tc := range []struct{ host, dir, want string }{
		{"3f2a9c", "/home/ana/notes", "local:3f2a9c:/home/ana/notes"},
		{"", "/home/ana/notes", "local:unknown:/home/ana/notes"},
		{"3f2a9c", `c:\users\ana\notes`, `local:3f2a9c:c:\users\ana\notes`},
		{"3f2a9c", `\\server\share\notes`, `local:3f2a9c:\\server\share\notes`},
	} {
		got := LocalKey(tc.host, tc.dir)
		if got != tc.want || !IsLocalKey(got) {
			t.Errorf("LocalKey(%q, %q) = %q (local %v), want %q", tc.host, tc.dir, got, IsLocalKey(got), tc.want)
		}
	}
	for _, k := range []string{"github.com/acme/api", "local/acme/api", "[fe80::1]/acme/api", "localhost/acme/api"} {
		if IsLocalKey(k) {
			t.Errorf("IsLocalKey(%q) = true", k)
		}
	}
}

// FuzzRemoteKey checks that a key never holds a control character, a "-"
// segment or an "@", and that a key without blanks is a fixed point.
func FuzzRemoteKey(f *testing.F) {
	for _, s := range []string{"https://github.com/acme/api.git", "git@github.com:acme/api.git", "ssh://a@b:22/c", "C:/x", "x::y", "[::1]:a", "a@[::1]:b", "https://github.com/.git.git", "https://h/a.git/.git", "https://h/a/..git", "https://h/a/.git/.", "h:%2525x", "h:a%3Fb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		key, err := RemoteKey(u)
		if err != nil {
			return
		}
		if IsLocalKey(key) || strings.Contains(key, "/-/") || strings.Contains(key, "@") || strings.IndexFunc(key, unicode.IsControl) >= 0 {
			t.Fatalf("RemoteKey(%q) = %q", u, key)
		}
		if strings.ContainsAny(key, " \t") || strings.HasPrefix(key, "[") {
			return
		}
		if again, err := RemoteKey("https://" + key); err != nil || again != key {
			t.Fatalf("RemoteKey(https://%s) = %q, want it unchanged", key, again)
		}
	})
}
