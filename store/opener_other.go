//go:build !linux

package store

// otherOpener returns 0: only Linux lists file locks (see opener_linux.go).
func otherOpener(string) int { return 0 }
