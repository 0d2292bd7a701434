package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Root returns the preferred workspace root for dir, which should be a
// canonical directory (see Canonical); Locate also says how it was chosen.
// Agents in different subdirectories of one project should meet in one
// room, so Root widens dir to:
//
//  1. the git top level, if dir is inside a git work tree: the nearest
//     directory at or above dir holding a .git directory or a .git file
//     (worktrees and submodules), so a submodule's own top level wins over
//     its superproject's;
//  2. otherwise the nearest directory at or above dir holding one of the
//     Markers;
//  3. otherwise dir itself.
//
// The filesystem root and the home directory are never chosen in steps 1
// and 2 (a home directory kept in git for its dotfiles, or holding an
// AGENTS.md, marks no project): they are passed over. Step 3 may still
// give them, or a top-level directory such as /etc; Locate reports that
// no room may be created there (Choice.Refused).
//
// Root never runs git; it only stats entries while walking up to the
// filesystem root. A .git entry that is neither a directory nor a regular
// file (a broken symlink, say) is ignored, as is any entry that cannot be
// stat'ed. dir must be an absolute path to an existing directory: an empty
// dir wraps ErrEmptyPath, a missing one ErrNotFound and fs.ErrNotExist, and
// a relative or non-directory one ErrInvalidPath.
func Root(dir string) (string, error) {
	c, err := Locate(dir)
	return c.Root, err
}

// Locate is Root that also says how the root was chosen: by git, a marker
// or the path itself, what was passed over, and whether a room may be
// created there. Its errors are those of Root.
func Locate(dir string) (Choice, error) {
	if dir == "" {
		return Choice{}, fmt.Errorf("workspace: root: %w: pass a canonical directory", ErrEmptyPath)
	}
	if strings.IndexByte(dir, 0) >= 0 {
		return Choice{}, fmt.Errorf("workspace: root %q: %w: contains a NUL byte", dir, ErrInvalidPath)
	}
	if !filepath.IsAbs(dir) {
		return Choice{}, fmt.Errorf("workspace: root %q: %w: not absolute; pass the result of Canonical", dir, ErrInvalidPath)
	}
	dir = filepath.Clean(dir)
	info, err := os.Stat(dir)
	if err != nil {
		return Choice{}, statError("root", dir, err)
	}
	if !info.IsDir() {
		return Choice{}, fmt.Errorf("workspace: root %q: %w: not a directory", dir, ErrInvalidPath)
	}
	return choose(dir), nil
}

// nearest walks from dir up to the filesystem root and returns the first
// directory for which match reports true.
func nearest(dir string, match func(string) bool) (string, bool) {
	for cur := dir; ; {
		if match(cur) {
			return cur, true
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", false
		}
		cur = parent
	}
}

// hasGitEntry reports whether dir holds a .git directory (an ordinary
// clone) or a .git regular file (a worktree or submodule pointing at its
// git dir), following symlinks.
func hasGitEntry(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, ".git"))
	if err != nil {
		return false
	}
	return info.IsDir() || info.Mode().IsRegular()
}

// hasMarker reports whether dir holds any of the Markers as something other
// than a directory.
func hasMarker(dir string) bool {
	_, ok := markerIn(dir)
	return ok
}
