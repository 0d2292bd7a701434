//go:build linux

package procid_test

import (
	"context"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
)

// watch starts watching id and fails the test when the platform refuses.
func watch(t *testing.T, ctx context.Context, id procid.Identity) <-chan struct{} {
	t.Helper()
	ch, ok := procid.WatchExit(ctx, id)
	if !ok {
		t.Fatalf("WatchExit(%v): ok = false, want a watch on Linux", id)
	}
	return ch
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func awaitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(safety):
		t.Fatalf("%s: channel not closed within %v", what, safety)
	}
}

func TestWatchExitKill(t *testing.T) {
	p, id := startBlocked(t)
	ch := watch(t, t.Context(), id)
	if isClosed(ch) {
		t.Fatal("channel closed while the process runs")
	}
	// SIGKILL without reaping: the zombie must already count as exited.
	if err := syscall.Kill(p.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitClosed(t, ch, "after SIGKILL")
	if got := procid.Check(id); got != procid.Gone {
		t.Errorf("Check after exit = %v, want gone", got)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestWatchExitOfACheckedProcess watches a process that Check has just
// found alive (so its pidfd is cached and the watch shares it): two watches
// and the cache all see it exit, and a watch cancelled early leaves the
// others working.
func TestWatchExitOfACheckedProcess(t *testing.T) {
	p, id := startBlocked(t)
	if got := procid.Check(id); got != procid.Alive {
		t.Fatalf("Check = %v, want alive", got)
	}
	early, cancel := context.WithCancel(t.Context())
	watch(t, early, id)
	cancel()
	a, b := watch(t, t.Context(), id), watch(t, t.Context(), id)
	if isClosed(a) || isClosed(b) {
		t.Fatal("channel closed while the process runs")
	}
	if got := procid.Check(id); got != procid.Alive {
		t.Fatalf("Check with watches = %v, want alive", got)
	}
	if err := syscall.Kill(p.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitClosed(t, a, "first watch after SIGKILL")
	awaitClosed(t, b, "second watch after SIGKILL")
	if got := procid.Check(id); got != procid.Gone {
		t.Errorf("Check after exit = %v, want gone", got)
	}
	_, _ = p.Wait()
}

func TestWatchExitKillAndReap(t *testing.T) {
	p, id := startBlocked(t)
	ch := watch(t, t.Context(), id)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	awaitClosed(t, ch, "after Kill")
}

func TestWatchExitAlreadyGone(t *testing.T) {
	reaped := goneIdentity(t)
	if !isClosed(watch(t, t.Context(), reaped)) {
		t.Error("WatchExit(reaped process): channel not closed at once")
	}

	_, live := startBlocked(t)
	reused := live // same pid, other start time: the pid was reused
	reused.StartedAt = live.StartedAt.Add(-10 * time.Millisecond)
	if !isClosed(watch(t, t.Context(), reused)) {
		t.Error("WatchExit(pid reused): channel not closed at once")
	}

	rebooted := live
	rebooted.BootID = "an-earlier-boot"
	if !isClosed(watch(t, t.Context(), rebooted)) {
		t.Error("WatchExit(other boot): channel not closed at once")
	}

	cmd := testproc.Command(t, "block")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	zombie, err := procid.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitExitedNoReap(t, zombie.PID)
	if !isClosed(watch(t, t.Context(), zombie)) {
		t.Error("WatchExit(zombie): channel not closed at once")
	}
	_ = cmd.Wait()
}

func TestWatchExitCannotWatch(t *testing.T) {
	id := self(t)
	for _, bad := range []procid.Identity{
		{},
		{HostID: "another-host", BootID: id.BootID, PID: id.PID, StartedAt: id.StartedAt},
		{BootID: id.BootID, PID: id.PID, StartedAt: id.StartedAt},
	} {
		if ch, ok := procid.WatchExit(t.Context(), bad); ok || ch != nil {
			t.Errorf("WatchExit(%v) = %v, %v; want nil, false", bad, ch, ok)
		}
	}
	whole := id // whole-second shift: cannot prove anything either way
	whole.StartedAt = id.StartedAt.Add(time.Second)
	if _, ok := procid.WatchExit(t.Context(), whole); ok {
		t.Error("WatchExit(start shifted by 1s): ok = true, want false")
	}
}

// TestWatchExitCancel checks that cancelling ctx ends the watchers: their
// goroutines return and their pidfds are closed.
func TestWatchExitCancel(t *testing.T) {
	id := self(t)
	baseG, baseFD := runtime.NumGoroutine(), openFDs(t)
	ctx, cancel := context.WithCancel(t.Context())
	var chans []<-chan struct{}
	for range 20 {
		chans = append(chans, watch(t, ctx, id))
	}
	if fds := openFDs(t); fds < baseFD+20 {
		t.Errorf("%d fds open while watching, want at least %d", fds, baseFD+20)
	}
	cancel()
	deadline := time.Now().Add(safety)
	for runtime.NumGoroutine() > baseG || openFDs(t) > baseFD {
		if time.Now().After(deadline) {
			t.Fatalf("after cancel: %d goroutines (was %d), %d fds (was %d)",
				runtime.NumGoroutine(), baseG, openFDs(t), baseFD)
		}
		time.Sleep(time.Millisecond)
	}
	for _, ch := range chans {
		if isClosed(ch) {
			t.Fatal("channel closed on cancel; it must close only on exit")
		}
	}

	done, cancelDone := context.WithCancel(t.Context())
	cancelDone()
	if ch, ok := procid.WatchExit(done, id); ok && isClosed(ch) {
		t.Error("WatchExit with a done ctx closed the channel of a live process")
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
