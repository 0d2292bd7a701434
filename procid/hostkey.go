//go:build linux || darwin || windows

package procid

import (
	"crypto/sha256"
	"encoding/hex"
)

// hostKey turns a raw machine id into the form stored in Identity.HostID:
// equal machines give equal keys, but the raw id is not revealed.
func hostKey(raw string) string {
	sum := sha256.Sum256([]byte("stick/procid host id\x00" + raw))
	return hex.EncodeToString(sum[:16])
}
