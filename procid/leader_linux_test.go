//go:build linux

package procid_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
)

func init() {
	// Keep the main goroutine on the main thread (the thread group
	// leader), so the leaderexit helper can end just that thread.
	runtime.LockOSThread()
	testproc.Register("leaderexit", func([]string) int {
		go func() {
			for {
				time.Sleep(time.Hour)
			}
		}()
		fmt.Println("ready")
		unix.RawSyscall(unix.SYS_EXIT, 0, 0, 0) // this thread only
		return 1
	})
}

// TestCheckLeaderExited covers a process whose main thread exited while
// other threads run: Linux shows it as a zombie, but it is alive.
func TestCheckLeaderExited(t *testing.T) {
	p := testproc.Start(t, "leaderexit")
	if line, err := p.ReadLine(safety); err != nil || line != "ready" {
		t.Fatalf("ReadLine = %q, %v; want ready", line, err)
	}
	id, err := procid.Of(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(safety)
	for procState(t, p.PID()) != 'Z' {
		if time.Now().After(deadline) {
			t.Fatal("main thread did not exit")
		}
		time.Sleep(time.Millisecond)
	}
	if got := procid.Check(id); got != procid.Alive {
		t.Errorf("Check(leader exited, threads running) = %v, want alive", got)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := procid.Check(id); got != procid.Gone {
		t.Errorf("Check(killed) = %v, want gone", got)
	}
}
