package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Canonical returns the canonical form of a context path, the string rooms
// are keyed by. The result is absolute; a path naming anything other than a
// directory is replaced by its parent directory; symlinks are resolved with
// filepath.EvalSymlinks; separators are cleaned with filepath.Clean (forward
// slashes are accepted on Windows); and letter case is folded with
// strings.ToLower for the components that live on a case-insensitive
// filesystem. Relative paths are resolved against the working directory.
//
// The path must exist: if it does not, the error wraps both ErrNotFound and
// fs.ErrNotExist. An empty path wraps ErrEmptyPath and a path holding a NUL
// byte wraps ErrInvalidPath.
func Canonical(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("workspace: %w: pass a directory or file path", ErrEmptyPath)
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("workspace: canonical %q: %w: contains a NUL byte", path, ErrInvalidPath)
	}
	abs, err := filepath.Abs(filepath.FromSlash(path))
	if err != nil {
		return "", fmt.Errorf("workspace: canonical %q: make absolute: %w", path, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", statError("canonical", path, err)
	}
	info, err := os.Stat(resolved)
	if err != nil {
		return "", statError("canonical", path, err)
	}
	if !info.IsDir() {
		resolved = filepath.Dir(resolved)
	}
	return foldPath(resolved), nil
}

// statError wraps a filesystem error for op on path, adding ErrNotFound when
// the error means the path does not exist.
func statError(op, path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("workspace: %s %q: %w: %w", op, path, ErrNotFound, err)
	}
	return fmt.Errorf("workspace: %s %q: %w", op, path, err)
}
