//go:build (unix || windows) && !linux

package filelock

// Holder returns 0: only Linux tells which process holds a lock.
func Holder(string) int { return 0 }

// LockHolder returns 0: only Linux tells which process holds a lock.
func LockHolder(string, string, bool, int) int { return 0 }
