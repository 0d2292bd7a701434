//go:build linux

package procid_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
)

// procState returns the state letter of pid from /proc/<pid>/stat.
func procState(t *testing.T, pid int) byte {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		t.Fatalf("bad stat %q", data)
	}
	return data[i+2]
}

// waitExitedNoReap blocks until child pid has exited, leaving it a zombie.
func waitExitedNoReap(t *testing.T, pid int) {
	t.Helper()
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("waitid: %v", err)
		}
		return
	}
}

func TestCheckZombie(t *testing.T) {
	cmd := testproc.Command(t, "block")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	id, err := procid.Of(pid)
	if err != nil {
		t.Fatal(err)
	}
	if got := procid.Check(id); got != procid.Alive {
		t.Errorf("Check(running child) = %v, want alive", got)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitExitedNoReap(t, pid)
	if st := procState(t, pid); st != 'Z' {
		t.Fatalf("child state %c, want Z (zombie)", st)
	}
	if got := procid.Check(id); got != procid.Gone {
		t.Errorf("Check(zombie) = %v, want gone", got)
	}
	if got, err := procid.Of(pid); err != nil || got != id {
		t.Errorf("Of(zombie) = %v, %v; want %v (same process, not yet reaped)", got, err, id)
	}
	_ = cmd.Wait() // killed: an error is expected
	if got := procid.Check(id); got != procid.Gone {
		t.Errorf("Check(reaped) = %v, want gone", got)
	}
}
