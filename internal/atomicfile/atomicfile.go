// Package atomicfile replaces files so that readers see the old content or
// the new, never a part, even when the writer dies halfway.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stickhq/stick/internal/ownerfs"
)

// WriteFile replaces the file at path with data so that a reader sees
// the old bytes or the new ones, never a mix, even if stick dies halfway: it
// writes a temporary file in the same directory, syncs it and renames it
// over path. An existing file keeps its permissions (a new one gets perm),
// and a symbolic link keeps pointing where it did: its target is replaced.
//
// It writes only what the user may change: a link is followed only when
// the link and its target are the user's own, a dangling link is an error
// (nothing is created through it), and a file another user owns or that
// is read-only to its owner is not rewritten.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if err := ownedByMe(path, fi, "the symbolic link"); err != nil {
			return err
		}
		target, err := filepath.EvalSymlinks(path)
		if errors.Is(err, fs.ErrNotExist) {
			dest, _ := os.Readlink(path)
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist; remove the link or create the file it names", path, dest)
		}
		if err != nil {
			return err
		}
		path = target
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	mode := perm
	if fi, err := os.Stat(path); err == nil {
		if err := ownedByMe(path, fi, ""); err != nil {
			return err
		}
		mode = fi.Mode().Perm()
		if ownerfs.Me() >= 0 && mode&0o200 == 0 {
			return fmt.Errorf("%s is read-only (mode %04o), so it is not rewritten; make it writable (chmod u+w) to let stick change it", path, mode)
		}
	}
	return write(path, data, mode)
}

// ownedByMe refuses a file (what names it, "" for "the file") another
// user owns.
func ownedByMe(path string, fi fs.FileInfo, what string) error {
	if what == "" {
		what = "the file"
	}
	if uid, ok := ownerfs.Owner(fi); ok && uid != ownerfs.Me() {
		return fmt.Errorf("%s %s is owned by uid %d, not by you (uid %d), so it is not written through", what, path, uid, ownerfs.Me())
	}
	return nil
}

// WritePrivate replaces the file at path with data as WriteFile does, for
// stick's own files: the new file is owner-only (0600) whatever the old
// one's mode, and a symbolic link at path is replaced itself, never
// followed.
func WritePrivate(path string, data []byte) error {
	return write(path, data, 0o600)
}

// write writes data to a temporary file beside path and renames it over
// path.
func write(path string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable; best effort, as not every filesystem can sync a directory
		d.Close()
	}
	return nil
}
