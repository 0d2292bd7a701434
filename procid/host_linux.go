//go:build linux

package procid

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// bootIDPath holds a random id the kernel draws at every boot.
const bootIDPath = "/proc/sys/kernel/random/boot_id"

// readBootID returns the kernel's boot id.
func readBootID() (string, error) {
	data, err := os.ReadFile(bootIDPath)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(data))
	if id == "" {
		return "", fmt.Errorf("%s is empty", bootIDPath)
	}
	return id, nil
}

// initPidNS is the inode number of the initial pid namespace
// (PROC_PID_INIT_INO), the same on every Linux machine and boot.
const initPidNS = 0xEFFFFFFC

// readHostID returns the machine id (or, in containers without one, the
// boot id) as a hash, followed by "/pidns-<inode>" when this process runs
// in a pid namespace other than the initial one: pids of two namespaces on
// the same machine are unrelated, so they must not count as one host.
func readHostID() (string, error) {
	if err := checkProcfs(); err != nil {
		return "", err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return "", fmt.Errorf("read pid namespace: %w", err)
	}
	inode, ok := strings.CutPrefix(ns, "pid:[")
	inode, ok2 := strings.CutSuffix(inode, "]")
	if !ok || !ok2 || inode == "" {
		return "", fmt.Errorf("read pid namespace: unexpected link %q", ns)
	}
	raw, err := machineID()
	if err != nil {
		return "", err
	}
	id := hostKey(raw)
	if inode != strconv.FormatUint(initPidNS, 10) {
		id += "/pidns-" + inode
	}
	return id, nil
}

// machineID returns systemd's machine id, or "boot:<boot id>" where the
// machine has none (minimal containers): stable for the kernel's lifetime,
// which is all liveness needs; after a reboot such identities merely count
// as another host (Unknown) instead of Gone.
func machineID() (string, error) {
	for _, path := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if id := strings.TrimSpace(string(data)); id != "" && id != "uninitialized" {
			return id, nil
		}
	}
	boot, err := readBootID()
	if err != nil {
		return "", errors.Join(errors.New("no machine id"), err)
	}
	return "boot:" + boot, nil
}
