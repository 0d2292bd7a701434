//go:build unix || windows

package filelock_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/internal/testproc"
)

func TestMain(m *testing.M) {
	testproc.Register("hold", runHold)
	testproc.Main(m)
}

// runHold takes the lock args[0], prints "locked" and keeps it until its
// standard input closes.
func runHold(args []string) int {
	l, err := filelock.Open(args[0])
	if err == nil {
		err = l.Lock()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// TestLockWithinGivesUp holds a lock in another process: LockWithin gives
// up with ErrTimeout once its time is up, or at once with ctx's error when
// ctx ends, instead of waiting as long as the holder likes; Holder names
// the holding process (on Linux); once the holder lets go, the lock is had.
func TestLockWithinGivesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x-lock")
	p := testproc.Start(t, "hold", path)
	if line, err := p.ReadLine(10 * time.Second); err != nil || line != "locked" {
		t.Fatalf("holder: %q %v\n%s", line, err, p.Stderr())
	}
	l, err := filelock.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	start := time.Now()
	if err := l.LockWithin(t.Context(), 300*time.Millisecond); !errors.Is(err, filelock.ErrTimeout) {
		t.Fatalf("LockWithin while another process holds the lock: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("LockWithin(300ms) returned after %v", d)
	}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	if err := l.LockWithin(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("LockWithin with a cancelled context: %v, want context.Canceled", err)
	}
	if runtime.GOOS == "linux" {
		if got := filelock.Holder(path); got != p.PID() {
			t.Errorf("Holder = %d, want the holding process %d", got, p.PID())
		}
	}
	p.Stdin().Close()
	if err := l.LockWithin(t.Context(), 10*time.Second); err != nil {
		t.Fatalf("LockWithin once the holder let go: %v", err)
	}
	if got := filelock.Holder(path); runtime.GOOS == "linux" && got != os.Getpid() {
		t.Errorf("Holder once this process has the lock = %d, want %d", got, os.Getpid())
	}
}
