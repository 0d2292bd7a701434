//go:build !unix

package workspace

import (
	"path/filepath"
	"strings"
)

// volumeKey names the filesystem holding dir by its volume name (a drive
// letter or UNC share on Windows), so the case-sensitivity answer for one
// volume is reused for every directory on it. ok is false on systems
// without volume names, where answers are not cached.
func volumeKey(dir string) (key string, ok bool) {
	vol := filepath.VolumeName(dir)
	if vol == "" {
		return "", false
	}
	return "vol:" + strings.ToLower(vol), true
}
