package workspace

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A room's key names its workspace the same way on every host, so rooms of
// one repository cloned on several hosts can be matched by it. It has one
// of two forms:
//
//   - A repository key, for a room in a git work tree whose remote origin
//     names a place other hosts reach: the normalised remote (RemoteKey),
//     such as github.com/acme/api, and for a room below the repository's
//     top level the path from there, after SubSeparator:
//     github.com/acme/api/-/services/billing. The separator is a path
//     segment of its own, as GitLab uses it in its URLs, because a remote's
//     path may have any number of segments (GitLab's nested groups):
//     gitlab.com/acme/api/services alone could be the repository
//     acme/api/services. A remote path holding a "-" segment gives no
//     repository key.
//   - A local key, for every other room: LocalPrefix, the host's id, a
//     colon and the room's canonical path, such as
//     local:3f2a…:/home/ana/notes. It says plainly that it names a
//     directory of one host, and no other host's room ever has it.

// LocalPrefix starts every local key (see LocalKey).
const LocalPrefix = "local:"

// SubSeparator separates a repository key's remote from the path of the
// room inside the repository (see RepoKey).
const SubSeparator = "/-/"

// MaxKeyLen bounds a key: a repository key that would be longer is not
// made, and the room gets a local key.
const MaxKeyLen = 4096 + 128

// UnknownHost stands for the host id in a local key when the host could
// not be identified.
const UnknownHost = "unknown"

// ErrNoRemoteKey is wrapped when a remote URL gives no repository key: it
// names a path on this host, uses a remote helper, or is malformed.
var ErrNoRemoteKey = errors.New("no repository key")

// RemoteKey normalises the URL of a git remote to the form repository keys
// start with: the host, lower-cased, and the repository's path, as
// written, without the scheme, the user info (and so any password or
// token in it), the port, a query, a trailing ".git" or trailing slashes.
// https://github.com/acme/api.git, git@github.com:acme/api.git,
// ssh://git@github.com:22/acme/api and git://github.com/acme/api/ all give
// github.com/acme/api.
//
// A remote that no other host can reach the same way gives an error
// wrapping ErrNoRemoteKey: a local path (/srv/git/api.git, ../api,
// C:\repos\api), a file:// URL, a remote helper's address (helper::addr),
// or one without a host or a path. So does one holding control
// characters, one whose port is not a number, one whose path holds an "@"
// (a password with a slash in it would otherwise end up in the key) or a
// "-" segment (see SubSeparator), and one whose key would be longer than
// MaxKeyLen. No error quotes the URL, which
// may carry a credential.
func RemoteKey(rawURL string) (string, error) {
	u := strings.TrimSpace(rawURL)
	if u == "" {
		return "", noRemoteKey("it is empty")
	}
	if !utf8.ValidString(u) || strings.IndexFunc(u, unicode.IsControl) >= 0 {
		return "", noRemoteKey("it holds control characters or invalid UTF-8")
	}
	var host, p string
	if scheme, rest, ok := strings.Cut(u, "://"); ok && validScheme(scheme) {
		scheme = strings.ToLower(scheme)
		if scheme == "file" {
			return "", noRemoteKey("a file:// URL names a path on this host")
		}
		authority, tail, _ := strings.Cut(rest, "/")
		host, p = hostOf(authority, true), tail
	} else if helper, _, ok := strings.Cut(u, "::"); ok && validScheme(helper) {
		return "", noRemoteKey("it is the address of a remote helper")
	} else if authority, tail, ok := scpLike(u); ok {
		host, p = hostOf(authority, false), tail
	} else {
		return "", noRemoteKey("it is a path on this host")
	}
	if host == "" {
		return "", noRemoteKey("it names no host")
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	if strings.Contains(p, "@") {
		// A password holding a slash (or, in the scp-like form, a colon)
		// would otherwise end up in the path.
		return "", noRemoteKey(`its path holds an "@", which may belong to a credential`)
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 || !utf8.ValidString(p) {
		return "", noRemoteKey("its path holds control characters or invalid UTF-8")
	}
	if strings.ContainsAny(p, "%?#") {
		// Escaped twice, or an escaped query or fragment: the key, read
		// back as a URL, would name another path.
		return "", noRemoteKey(`its path holds "%", "?" or "#" once unescaped`)
	}
	if caseFoldingHosts[host] {
		p = strings.ToLower(p)
	}
	p = repoPath(p)
	if p == "" {
		return "", noRemoteKey("it names no repository path")
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", noRemoteKey("its path leaves the host's root")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "-" {
			return "", noRemoteKey(`its path has a "-" segment, which separates a room's path in a key`)
		}
	}
	key := host + "/" + p
	if len(key) > MaxKeyLen {
		return "", noRemoteKey(fmt.Sprintf("its key would be longer than %d bytes", MaxKeyLen))
	}
	return key, nil
}

// caseFoldingHosts are hosting services whose repository paths ignore
// case (github.com/Acme/API is github.com/acme/api): their keys take the
// path in lower case, so that clones made from URLs typed differently
// still share a key. Other hosts keep the path as written, since a
// server of one's own may tell the two apart.
var caseFoldingHosts = map[string]bool{
	"github.com":    true,
	"gitlab.com":    true,
	"bitbucket.org": true,
	"codeberg.org":  true,
}

func noRemoteKey(why string) error {
	return fmt.Errorf("workspace: remote URL: %w: %s", ErrNoRemoteKey, why)
}

// validScheme reports whether s is a URL scheme as RFC 3986 spells it: a
// letter, then letters, digits, "+", "-" or ".".
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}

// scpLike splits git's scp-like remote syntax, [user@]host:path, into its
// authority and path. As git does, it is that syntax only when a colon
// comes before any slash; a one-letter host is a Windows drive letter
// (C:\repos\api, C:/repos/api), so a path. A bracketed host
// ([fe80::1]:repo) may hold colons.
func scpLike(u string) (authority, p string, ok bool) {
	if strings.HasPrefix(u, "[") || strings.Contains(u, "@[") {
		end := strings.Index(u, "]:")
		if end < 0 || strings.Contains(u[:end], "/") {
			return "", "", false
		}
		return u[:end+1], u[end+2:], true
	}
	colon := strings.IndexByte(u, ':')
	if colon < 0 {
		return "", "", false
	}
	if slash := strings.IndexAny(u, `/\`); slash >= 0 && slash < colon {
		return "", "", false
	}
	authority = u[:colon]
	if len(authority) == 1 {
		return "", "", false
	}
	return authority, u[colon+1:], true
}

// hostOf returns the lower-cased host of an authority ([user[:password]@]
// host[:port]), without the user info and the port, or "" when it names
// no host; withPort says the authority is a URL's, where a colon after
// the host starts a port (in the scp-like form there is none). A host is
// letters, digits, "-", "_" and dots between them (a trailing dot is
// dropped); an IPv6 host keeps its brackets.
func hostOf(authority string, withPort bool) string {
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:]
	}
	if strings.HasPrefix(authority, "[") {
		end := strings.IndexByte(authority, ']')
		if end < 0 || strings.Trim(strings.ToLower(authority[1:end]), "0123456789abcdef:.") != "" {
			return ""
		}
		return strings.ToLower(authority[:end+1])
	}
	if withPort {
		var port string
		authority, port, _ = strings.Cut(authority, ":")
		if strings.Trim(port, "0123456789") != "" {
			return ""
		}
	}
	host := strings.TrimSuffix(strings.ToLower(authority), ".")
	for _, label := range strings.Split(host, ".") {
		if label == "" || strings.IndexFunc(label, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_'
		}) >= 0 {
			return ""
		}
	}
	return host
}

// RepoKey is the key of a room in a repository whose remote gives the key
// remote (see RemoteKey): remote itself for a room at the repository's
// top level (sub "" or "."), else remote, SubSeparator and sub, the
// room's path below the top level with slashes between its components.
// sub is lower-cased: hosts whose filesystems ignore letter case fold it
// in canonical paths (see Canonical) and others do not, and a key must be
// the same on all of them.
func RepoKey(remote, sub string) string {
	sub = strings.Trim(sub, "/")
	if sub == "" || sub == "." {
		return remote
	}
	return remote + SubSeparator + strings.ToLower(sub)
}

// LocalKey is the key of a room that has no repository key: LocalPrefix,
// hostID (UnknownHost when empty), a colon and dir, the room's canonical
// path, as the host spells it.
func LocalKey(hostID, dir string) string {
	if hostID == "" {
		hostID = UnknownHost
	}
	return LocalPrefix + hostID + ":" + dir
}

// IsLocalKey reports whether key is a local key, one that names a
// directory of one host (see LocalKey); a repository key never starts with
// LocalPrefix, since its host holds no colon.
func IsLocalKey(key string) bool { return strings.HasPrefix(key, LocalPrefix) }

// repoPath cleans a remote's path and strips its ".git" suffixes until
// nothing changes, so that a key is a fixed point: "a.git/.git", "a/./" and
// "a" name one repository. It returns "" for a path that names nothing.
func repoPath(p string) string {
	for {
		next := strings.Trim(strings.TrimSpace(p), "/")
		if next != "" {
			next = strings.TrimSuffix(path.Clean(next), ".git")
		}
		if next == p {
			return p
		}
		p = next
	}
}
