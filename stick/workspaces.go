package stick

import (
	"errors"
	"io/fs"
	"sync"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/workspace"
)

// Workspaces resolves context paths for a Service: their canonical form,
// the workspace root their room belongs at, whether a room may be created
// at a directory, and the key that names a room's workspace the same way
// on every host. JoinPath, ListRooms, RoomFor and AbandonedRooms never
// look at a disk themselves but ask it, so a server can resolve the paths of clients whose disks it
// cannot see. workspace.Local resolves them on this host's disk; it is
// what LocalWorkspaces returns and what a Service uses by default.
type Workspaces interface {
	// Resolve canonicalises path and chooses its workspace root, as
	// workspace.Resolve does. Its errors wrap workspace.ErrEmptyPath,
	// workspace.ErrInvalidPath, or workspace.ErrNotFound together with
	// fs.ErrNotExist for a path that does not exist.
	Resolve(path string) (workspace.Resolution, error)
	// Refusal says why no room may be created at dir, a canonical
	// directory, by joining a path; "" when one may (workspace.Refusal).
	Refusal(dir string) string
	// Key returns the key of a room at dir, a canonical directory: the
	// same on every host for a directory of one repository, or a key
	// local to one host (see workspace.Local.Key). It never fails, and a
	// directory that no longer exists gets a local key.
	Key(dir string) string
}

// WithWorkspaces sets how context paths are resolved and rooms keyed
// (default LocalWorkspaces()).
func WithWorkspaces(w Workspaces) Option { return func(s *Service) { s.workspaces = w } }

// LocalWorkspaces returns the Workspaces of this host: workspace.Local,
// whose local keys name this host by procid's host id.
func LocalWorkspaces() Workspaces { return localWorkspaces() }

// localWorkspaces reads the host id once, at the first use.
var localWorkspaces = sync.OnceValue(func() Workspaces {
	host, _, _ := procid.Host()
	return workspace.Local{HostID: host}
})

// ResolvePath resolves a context path as JoinPath and ListRooms do with
// LocalWorkspaces: its canonical form, its workspace root and how that
// root was chosen (Resolution.Explain), including whether a join may
// create a room there (Resolution.Refused).
//
// Errors: invalid_argument (context_path).
func ResolvePath(path string) (workspace.Resolution, error) {
	return resolveWith(LocalWorkspaces(), path)
}

// resolve resolves a context path with the Service's Workspaces.
func (s *Service) resolve(path string) (workspace.Resolution, error) {
	return resolveWith(s.workspaces, path)
}

func resolveWith(w Workspaces, path string) (workspace.Resolution, error) {
	if err := checkLen("context_path", path, MaxPathLen); err != nil {
		return workspace.Resolution{}, err
	}
	res, err := w.Resolve(path)
	if err == nil {
		return res, nil
	}
	switch {
	case path == "":
		return res, invalidArg("context_path", "context_path must be non-empty").
			WithHint("pass a file or directory inside the workspace, for example the current directory")
	case errors.Is(err, fs.ErrNotExist):
		return res, invalidArg("context_path", "context_path %s does not exist", Quote(path)).
			WithHint("pass an existing file or directory inside the workspace")
	}
	return res, invalidArg("context_path", "cannot resolve context_path %s: %v", Quote(path), err).Wrap(err)
}
