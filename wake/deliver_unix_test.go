//go:build unix

package wake_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stickhq/stick/wake"
)

func TestDeliverNothing(t *testing.T) {
	if ds := wake.Deliver(context.Background(), nil, "text", wake.Options{}); ds != nil {
		t.Fatalf("Deliver with no registrations = %v, want nil", ds)
	}
}

// fallback returns a Claude inbox registration for path and a Codex one
// whose codex records that it ran, with the marker file's path.
func fallback(t *testing.T, path string) ([]wake.Registration, wake.Options, string) {
	codex := script(t, t.TempDir(), "codex", recordArgs)
	regs := []wake.Registration{wake.NewClaudeInbox(path, secretToken), wake.NewCodexQueue("019a-thread")}
	return regs, wake.Options{Codex: codex, Timeout: 300 * time.Millisecond}, codex + ".argv"
}

// A transport that certainly failed leaves the session to the next one.
func TestDeliverFallsBackAfterFailure(t *testing.T) {
	regs, o, marker := fallback(t, filepath.Join(shortDir(t), "missing.sock"))
	ds := wake.Deliver(context.Background(), regs, queueText, o)
	assertSafe(t, ds, queueText)
	if got := states(ds); got != "claude-inbox:failed codex-queue:queued" {
		t.Fatalf("deliveries = %v, want the inbox failed, then codex queued", ds)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("codex did not run: %v", err)
	}
}

// After an ambiguous attempt no other transport is tried: the session may
// already be awake, and no session is woken twice.
func TestDeliverStopsAfterAmbiguous(t *testing.T) {
	path := fakeInbox(t, func(conn *net.UnixConn) {
		_, _ = io.Copy(io.Discard, bufio.NewReader(conn))
	})
	regs, o, marker := fallback(t, path)
	ds := wake.Deliver(context.Background(), regs, queueText, o)
	assertSafe(t, ds, queueText)
	if got := states(ds); got != "claude-inbox:ambiguous" {
		t.Fatalf("deliveries = %v, want the inbox ambiguous alone", ds)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("codex ran after an ambiguous attempt: %v", err)
	}
}

// The first transport that queues the text is the last one tried.
func TestDeliverStopsAtQueued(t *testing.T) {
	path := fakeInbox(t, func(conn *net.UnixConn) {
		readLines(t, bufio.NewReader(conn))
	})
	regs, o, marker := fallback(t, path)
	ds := wake.Deliver(context.Background(), regs, inboxText, o)
	assertSafe(t, ds, inboxText)
	if got := states(ds); got != "claude-inbox:queued" {
		t.Fatalf("deliveries = %v, want the inbox queued alone", ds)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("codex ran after the inbox queued the text: %v", err)
	}
}

// A transport this package does not know fails, and the next is tried.
func TestDeliverUnknownTransport(t *testing.T) {
	codex := script(t, t.TempDir(), "codex", recordArgs)
	regs := []wake.Registration{{Transport: "pager", Address: "x"}, wake.NewCodexQueue("019a-thread")}
	ds := wake.Deliver(context.Background(), regs, queueText, wake.Options{Codex: codex})
	assertSafe(t, ds, queueText)
	if got := states(ds); got != "pager:failed codex-queue:queued" {
		t.Fatalf("deliveries = %v, want the unknown transport failed, then codex queued", ds)
	}
}

// With its context already ended, nothing is sent and nothing runs: every
// transport certainly failed.
func TestDeliverCancelled(t *testing.T) {
	path := fakeInbox(t, func(conn *net.UnixConn) {
		t.Error("the inbox was reached after the context ended")
	})
	regs, o, marker := fallback(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ds := wake.Deliver(ctx, regs, queueText, o)
	assertSafe(t, ds, queueText)
	if got := states(ds); got != "claude-inbox:failed codex-queue:failed" {
		t.Fatalf("deliveries = %v, want both failed", ds)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("codex ran after the context ended: %v", err)
	}
}
