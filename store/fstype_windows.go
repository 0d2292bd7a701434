package store

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// CheckLocalFS returns nil when dir is on a local filesystem, and an error
// wrapping ErrUnsupportedFilesystem that names the filesystem type and tells
// the user to set TALKING_STICK_DATA_DIR otherwise. SQLite's locking is
// unreliable on network shares, so the store refuses them up front instead
// of risking a corrupt database.
//
// On Windows, UNC paths (\\server\share, including \\wsl$) and drive letters
// that GetDriveType reports as DRIVE_REMOTE (mapped network drives) are
// refused.
func CheckLocalFS(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("checking filesystem of %q: %w", dir, err)
	}
	vol := filepath.VolumeName(abs)
	if isUNCVolume(vol) {
		return unsupportedFS(dir, "network share (UNC path)")
	}
	if vol == "" {
		return nil
	}
	root, err := windows.UTF16PtrFromString(vol + `\`)
	if err != nil {
		return fmt.Errorf("checking filesystem of %q: %w", dir, err)
	}
	if windows.GetDriveType(root) == windows.DRIVE_REMOTE {
		return unsupportedFS(dir, "network drive")
	}
	return nil
}

// isUNCVolume reports whether vol, a filepath.VolumeName result, names a
// network share rather than a drive letter or local device.
func isUNCVolume(vol string) bool {
	v := strings.ReplaceAll(vol, "/", `\`)
	switch {
	case strings.HasPrefix(strings.ToUpper(v), `\\?\UNC\`):
		return true
	case strings.HasPrefix(v, `\\?\`), strings.HasPrefix(v, `\\.\`):
		return false
	default:
		return strings.HasPrefix(v, `\\`)
	}
}
