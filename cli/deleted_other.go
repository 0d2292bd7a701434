//go:build !linux

package cli

// deletedDBUsers returns nil: only Linux tells which processes have a
// deleted file open.
func deletedDBUsers(string) []int { return nil }
