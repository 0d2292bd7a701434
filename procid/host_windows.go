//go:build windows

package procid

import (
	"fmt"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// readBootID returns no boot id: Windows has no stable one, and one
// derived from the boot time differs by a second between processes that
// compute it at different moments, which would make Check report live
// processes as Gone. Process creation times are absolute on Windows, so
// Check stays exact without it.
func readBootID() (string, error) {
	return "", nil
}

// readHostID returns the MachineGuid from the registry as a hash.
func readHostID() (string, error) {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SOFTWARE\Microsoft\Cryptography`, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return "", fmt.Errorf("open registry key: %w", err)
	}
	defer k.Close()
	guid, _, err := k.GetStringValue("MachineGuid")
	if err != nil {
		return "", fmt.Errorf("read MachineGuid: %w", err)
	}
	guid = strings.ToLower(strings.TrimSpace(guid))
	if guid == "" {
		return "", fmt.Errorf("read MachineGuid: empty")
	}
	return hostKey(guid), nil
}
