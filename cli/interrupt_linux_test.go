package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestInterruptedWaitsExitClean interrupts `stick sync --wait` with Ctrl-C
// and with SIGTERM while it waits: each ends at once with the one line
// "stick: interrupted" and the status a shell gives a process the signal
// killed (130, 143), not a usage error.
func TestInterruptedWaitsExitClean(t *testing.T) {
	repo, _ := holderRepo(t)
	mustRun(t, repo, "join")
	for _, c := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		p := startBin(t, repo, "sync", "--wait", "5m")
		waitOpened(t, p.cmd.Process.Pid, "rooms.sqlite")
		p.signal(t, c.sig)
		if code := p.wait(t); code != c.code || p.stderr.String() != "stick: interrupted\n" {
			t.Errorf("sync --wait ended by %v: exit %d, stderr %q; want exit %d and one line", c.sig, code, p.stderr.String(), c.code)
		}
	}
}

// waitOpened waits until process pid has a file named name open: it is
// then past the start of main, where signals are caught.
func waitOpened(t *testing.T, pid int, name string) {
	t.Helper()
	eventually(t, "the process opens "+name, func() bool {
		fds, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fd", "*"))
		for _, fd := range fds {
			if l, err := os.Readlink(fd); err == nil && filepath.Base(l) == name {
				return true
			}
		}
		return false
	})
}

// TestUncodedFailuresAreNotUsageErrors writes a listing to a full device:
// the failure is the system's, so the command exits 1 with a coded line
// and no pointer to --help.
func TestUncodedFailuresAreNotUsageErrors(t *testing.T) {
	repo, _ := holderRepo(t)
	mustRun(t, repo, "join")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	cmd := exec.Command(stickBin, "list", "--json")
	cmd.Dir, cmd.Stdout = repo, full
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.HasPrefix(stderr.String(), "stick: internal: ") || strings.Contains(stderr.String(), "usage") {
		t.Fatalf("list --json to a full device: %v, exit %d, stderr %q; want exit 1, internal, no usage hint", err, code, stderr.String())
	}
}
