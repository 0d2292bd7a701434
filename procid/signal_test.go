package procid_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
)

func TestSignalStopsTheExactProcess(t *testing.T) {
	p, id := startBlocked(t)
	if err := procid.Signal(id, syscall.SIGTERM); err != nil {
		t.Fatalf("Signal live helper: %v", err)
	}
	exited, ok := procid.WatchExit(t.Context(), id)
	if !ok {
		t.Skip("this system cannot watch process exits")
	}
	select {
	case <-exited:
	case <-time.After(safety):
		t.Fatal("helper still runs after SIGTERM")
	}
	p.Wait()
	if err := procid.Signal(id, syscall.SIGTERM); !errors.Is(err, procid.ErrNoProcess) {
		t.Fatalf("Signal gone helper = %v, want ErrNoProcess", err)
	}
}

func TestSignalRefusesAReusedPid(t *testing.T) {
	_, id := startBlocked(t)
	other := id
	other.StartedAt = id.StartedAt.Add(-7 * time.Millisecond) // an earlier process with the same pid
	if err := procid.Signal(other, syscall.SIGKILL); !errors.Is(err, procid.ErrNoProcess) {
		t.Fatalf("Signal with another start time = %v, want ErrNoProcess", err)
	}
	if st := procid.Check(id); st != procid.Alive {
		t.Fatalf("the process behind the reused pid was signalled: %v", st)
	}
	foreign := id
	foreign.HostID = "another-host"
	if err := procid.Signal(foreign, syscall.SIGKILL); err == nil || errors.Is(err, procid.ErrNoProcess) {
		t.Fatalf("Signal on another host = %v, want a refusal", err)
	}
	if st := procid.Check(id); st != procid.Alive {
		t.Fatalf("a foreign identity's pid was signalled: %v", st)
	}
}

func TestAncestorsStartWithTheParent(t *testing.T) {
	chain, err := procid.Ancestors()
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) == 0 {
		t.Skip("the test runs directly under init")
	}
	parent, err := procid.Parent()
	if err != nil {
		t.Fatal(err)
	}
	if chain[0].Identity != parent {
		t.Fatalf("Ancestors()[0] = %v, want the parent %v", chain[0].Identity, parent)
	}
	for i, a := range chain {
		if a.PID <= 1 || a.Name == "" || procid.Check(a.Identity) != procid.Alive {
			t.Fatalf("ancestor %d = %+v (%v)", i, a, procid.Check(a.Identity))
		}
	}
}

func TestAncestorsNameTheCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := testproc.Start(t, "parent-name")
	line, err := p.ReadLine(safety)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Base(self)
	want = want[:min(len(want), 15)] // Linux keeps 15 bytes of a command name
	if line != want {
		t.Fatalf("the child sees its parent named %q, want %q", line, want)
	}
}

// parentName prints the command name of the process's parent.
func parentName([]string) int {
	chain, err := procid.Ancestors()
	if err != nil || len(chain) == 0 {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println(chain[0].Name)
	return 0
}
