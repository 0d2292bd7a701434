//go:build linux

package store_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stickhq/stick/internal/testproc"
	"golang.org/x/sys/unix"
)

func init() {
	testproc.Register(openHelper, runOpenHelper)
}

// unprivilegedID is the user and group the asUnprivileged helper runs as in
// its user namespace: anything but 0 (root), which would keep capabilities.
const unprivilegedID = 1000

// apply sets up a helper's process attributes for i.
func (i isolation) apply(a *syscall.SysProcAttr) {
	inner := 0
	switch i {
	case asUnprivileged:
		a.Cloneflags |= syscall.CLONE_NEWUSER
		inner = unprivilegedID
	case inMountNamespace:
		a.Cloneflags |= syscall.CLONE_NEWNS
		if os.Geteuid() == 0 {
			return
		}
		// Mapped to root in a user namespace of its own, the helper may
		// mount in the mount namespace that belongs to it.
		a.Cloneflags |= syscall.CLONE_NEWUSER
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: inner, HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: inner, HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// runIsolated runs helper name with args isolated by iso and decodes the
// JSON it prints into out. It skips the test when the kernel or the
// sandbox does not allow such a process.
func runIsolated(t *testing.T, iso isolation, out any, name string, args ...string) {
	t.Helper()
	cmd := testproc.Command(t, name, args...)
	iso.apply(cmd.SysProcAttr)
	stdout, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		t.Fatalf("helper %s exited: %v\n%s", name, err, ee.Stderr)
	case err != nil:
		t.Skipf("cannot start a process %s here: %v", iso, err)
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("helper %s printed %q: %v", name, stdout, err)
	}
}

// runOpenHelper opens args[1] with the opener args[0] and prints the
// outcome as JSON. With args[2], it first makes that path a read-only bind
// mount (in its own mount namespace: see inMountNamespace).
func runOpenHelper(args []string) int {
	var out outcome
	if len(args) > 2 {
		unmount, err := mountReadOnly(args[2])
		if err != nil {
			out.Setup = err.Error()
			return printJSON(out)
		}
		defer unmount()
	}
	return printJSON(attempt(args[0], args[1]))
}

// mountReadOnly bind-mounts p onto itself read-only and returns the
// function that unmounts it. Mount propagation is turned off first, so
// nothing shows outside the helper's mount namespace.
func mountReadOnly(p string) (func(), error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("making mounts private: %w", err)
	}
	if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
		return nil, fmt.Errorf("bind-mounting %s: %w", p, err)
	}
	unmount := func() { _ = unix.Unmount(p, unix.MNT_DETACH) }
	// A user namespace may not drop the flags the mount it copies was
	// locked with (nosuid, nodev, ...), so they are kept; the ST_ flags
	// statfs reports have the values of the MS_ flags.
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		unmount()
		return nil, fmt.Errorf("statfs %s: %w", p, err)
	}
	keep := uintptr(st.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
	if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|keep, ""); err != nil {
		unmount()
		return nil, fmt.Errorf("remounting %s read-only: %w", p, err)
	}
	return unmount, nil
}

// printJSON prints v for the parent test and returns the helper's exit
// code.
func printJSON(v any) int {
	if err := json.NewEncoder(os.Stdout).Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
