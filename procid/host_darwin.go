//go:build darwin

package procid

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// readBootID returns kern.bootsessionuuid, drawn anew at every boot. Where
// the sysctl does not exist (macOS before 10.13) there is no boot id.
func readBootID() (string, error) {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	if errors.Is(err, unix.ENOENT) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("sysctl kern.bootsessionuuid: %w", err)
	}
	return strings.ToLower(strings.TrimSpace(id)), nil
}

// readHostID returns the hardware UUID (IOPlatformUUID) as a hash. Like
// gopsutil, it asks ioreg, since there is no sysctl for it.
func readHostID() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/sbin/ioreg", "-rd1", "-c", "IOPlatformExpertDevice").Output()
	if err != nil {
		return "", fmt.Errorf("ioreg: %w", err)
	}
	for line := range strings.Lines(string(out)) {
		if !strings.Contains(line, `"IOPlatformUUID"`) {
			continue
		}
		_, v, ok := strings.Cut(line, "=")
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if ok && v != "" {
			return hostKey(strings.ToLower(v)), nil
		}
	}
	return "", errors.New("ioreg: no IOPlatformUUID")
}
