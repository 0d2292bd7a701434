package ownerfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrUnsafe is wrapped by every refusal of this package: a directory or
// file another user owns or could change, or a symbolic link where stick
// keeps its own files.
var ErrUnsafe = errors.New("not safe to use")

// CheckDir reports, wrapping ErrUnsafe, a directory dir that another user
// owns or that its group or others may write in: anyone who can write in
// it can plant links that make stick overwrite the user's files, or read
// what stick keeps there. A link to a directory is followed (the user may
// point the data directory anywhere), and the directory it leads to is
// checked. Where files have no Unix owner (Windows) only the type is.
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return checkDir(dir, fi)
}

func checkDir(dir string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafe, dir)
	}
	if !checksOwner {
		return nil
	}
	if uid, ok := ownerOf(fi); ok && uid != me() {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d)", ErrUnsafe, dir, uid, me())
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by its group or by others (mode %04o)", ErrUnsafe, dir, perm)
	}
	return nil
}

// Subdir creates the directory dir owner-only (0700, whatever the umask)
// if it is missing, in a parent that must exist, and checks it as
// CheckDir does, except that a link is refused, not followed.
func Subdir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err == nil {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return linkErr(dir)
	}
	return checkDir(dir, fi)
}

// OpenFile opens the file at path as os.OpenFile does, but never through a
// symbolic link: a link, even a dangling one, is refused and nothing is
// created through it. It also refuses what is not a regular file or is
// owned by another user, and takes from the file any permission beyond
// perm (a file created under a loose umask, or by an older stick), so
// that what stick keeps is owner-only; it adds none.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if NoFollow == 0 {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, linkErr(path)
		}
	}
	f, err := os.OpenFile(path, flag|NoFollow, perm)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, linkErr(path)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkFile(path, fi, perm, f.Chmod)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the file at path, never through a link, with the checks
// of OpenFile (perm 0600).
func ReadFile(path string) ([]byte, error) {
	f, err := OpenFile(path, os.O_RDONLY, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// CheckFile applies OpenFile's checks to a file that another program
// opens (SQLite's -wal and -shm files): a missing file is fine, a link,
// anything but a regular file, or another user's file is refused, and
// permissions beyond perm are taken away.
func CheckFile(path string, perm fs.FileMode) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return linkErr(path)
	}
	return checkFile(path, fi, perm, func(m fs.FileMode) error { return os.Chmod(path, m) })
}

func checkFile(path string, fi fs.FileInfo, perm fs.FileMode, chmod func(fs.FileMode) error) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrUnsafe, path)
	}
	if !checksOwner {
		return nil
	}
	if uid, ok := ownerOf(fi); ok && uid != me() {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d)", ErrUnsafe, path, uid, me())
	}
	if mode := fi.Mode().Perm(); mode&^perm != 0 {
		return chmod(mode & perm)
	}
	return nil
}

// Owner returns the uid that owns the file fi describes, and false where
// files have no Unix owner.
func Owner(fi fs.FileInfo) (int, bool) {
	if !checksOwner {
		return 0, false
	}
	return ownerOf(fi)
}

// Me is the uid that owns what this process creates (-1 where files have
// no Unix owner).
func Me() int { return me() }

func linkErr(path string) error {
	return fmt.Errorf("%w: %s is a symbolic link, and stick never follows one where it keeps its files", ErrUnsafe, path)
}
