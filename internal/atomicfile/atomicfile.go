// Package atomicfile replaces files so that readers see the old content or
// the new, never a part, even when the writer dies halfway.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces the file at path with data so that a reader sees
// the old bytes or the new ones, never a mix, even if stick dies halfway: it
// writes a temporary file in the same directory, syncs it and renames it
// over path. An existing file keeps its permissions (a new one gets perm),
// and a symbolic link keeps pointing where it did: its target is replaced.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	mode := perm
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
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
