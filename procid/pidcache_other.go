//go:build !linux

package procid

// cachedCheck has no cache off Linux (no pidfds): every check is a full one.
func cachedCheck(Identity) (Status, bool) { return Unknown, false }

// remember does nothing off Linux.
func remember(Identity) {}
