//go:build !linux

package store

// inotifyUsage is known on Linux only.
func inotifyUsage() (used, limit int) { return 0, 0 }
