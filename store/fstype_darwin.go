package store

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// networkTypesDarwin lists the f_fstypename values of macOS network
// filesystems, where SQLite locking is unreliable.
var networkTypesDarwin = map[string]bool{
	"nfs": true, "smbfs": true, "afpfs": true, "webdav": true, "cifs": true,
}

// CheckLocalFS returns nil when dir is on a local filesystem, and an error
// wrapping ErrUnsupportedFilesystem that names the filesystem type and tells
// the user to set TALKING_STICK_DATA_DIR otherwise. SQLite's locking and WAL
// shared memory are unreliable on network filesystems, so the store refuses
// them up front instead of risking a corrupt database.
//
// On macOS the type comes from statfs(2)'s f_fstypename; FUSE mounts
// (macFUSE) cannot be told apart by type and are allowed.
func CheckLocalFS(dir string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fmt.Errorf("checking filesystem of %q: %w", dir, err)
	}
	name := unix.ByteSliceToString(st.Fstypename[:])
	if networkTypesDarwin[name] {
		return unsupportedFS(dir, name)
	}
	return nil
}
