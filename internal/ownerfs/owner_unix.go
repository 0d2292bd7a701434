//go:build unix

package ownerfs

import (
	"io/fs"
	"os"
	"syscall"
)

// NoFollow is the open flag that makes opening a symbolic link fail
// instead of opening what it points to.
const NoFollow = syscall.O_NOFOLLOW

// checksOwner reports whether this platform has file owners and modes to
// check.
const checksOwner = true

// ownerOf returns the uid owning the file fi describes.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// me is the effective uid, the one that owns what this process creates.
func me() int { return os.Geteuid() }
