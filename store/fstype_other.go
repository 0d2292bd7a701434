//go:build !linux && !darwin && !windows

package store

// CheckLocalFS returns nil when dir is on a local filesystem, and an error
// wrapping ErrUnsupportedFilesystem otherwise. SQLite's locking is unreliable
// on network filesystems; on this platform the filesystem type is not
// inspected, so every directory is accepted.
func CheckLocalFS(dir string) error {
	return nil
}
