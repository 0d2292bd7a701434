package workspace

import (
	"path/filepath"
	"strings"
)

// Local resolves workspaces on this host's own disk: it canonicalises
// paths and chooses roots as Resolve does, refuses roots as Refusal does,
// and keys rooms by their repository's origin (see Key). It is the
// resolver a stick.Service uses unless it is given another.
type Local struct {
	// HostID names this host in local keys (procid.Host's host id); ""
	// writes UnknownHost.
	HostID string
}

// Resolve canonicalises path and finds its workspace root; see Resolve.
func (Local) Resolve(path string) (Resolution, error) { return Resolve(path) }

// Refusal says why no room may be created at dir; see Refusal.
func (Local) Refusal(dir string) string { return Refusal(dir) }

// Key returns the key of a room at dir, a canonical directory. When dir is
// in a git work tree that Root would choose (a repository in the home
// directory itself is passed over) and the repository has an origin
// remote that RemoteKey keys, it is the repository key: the remote, and
// dir's path below the work tree's top level (RepoKey). Otherwise,
// including when dir no longer exists or anything about the repository
// cannot be read, it is the local key of dir on l's host (LocalKey). It
// never fails and never runs git.
func (l Local) Key(dir string) string {
	local := LocalKey(l.HostID, dir)
	c, err := Locate(dir)
	if err != nil || c.How != HowGit {
		return local
	}
	origin, ok := Origin(c.Root)
	if !ok {
		return local
	}
	remote, err := RemoteKey(origin)
	if err != nil {
		return local
	}
	rel, err := filepath.Rel(c.Root, filepath.Clean(dir))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return local
	}
	key := RepoKey(remote, filepath.ToSlash(rel))
	if len(key) > MaxKeyLen {
		return local
	}
	return key
}
