//go:build unix

package workspace

import (
	"fmt"
	"os"
	"syscall"
)

// volumeKey names the filesystem holding dir by its device number, so the
// case-sensitivity answer for one mount is reused for every directory on
// it. ok is false when dir cannot be stat'ed.
func volumeKey(dir string) (key string, ok bool) {
	info, err := os.Stat(dir)
	if err != nil {
		return "", false
	}
	st, isStat := info.Sys().(*syscall.Stat_t)
	if !isStat {
		return "", false
	}
	return fmt.Sprintf("dev:%d", st.Dev), true
}
