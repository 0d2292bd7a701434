//go:build unix

package wake_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/wake"
)

// queueText is sent in the codex tests: quotes, a dollar sign, a
// semicolon and a backquote, which must reach codex as one argument,
// untouched by any shell.
const queueText = "stick: bob addressed you in room 'r'. \"$HOME\"; `id`"

// recordArgs is a fake codex's body that writes its arguments, each ended
// by NUL, next to itself and says it queued the message.
const recordArgs = `for a in "$@"; do printf '%s\0' "$a"; done > "$0.argv"
echo "Queued message m-1 for thread $3."`

// deliverQueue delivers queueText to thread with o and checks the attempt
// stayed within its timeout.
func deliverQueue(t *testing.T, thread string, o wake.Options) wake.Delivery {
	t.Helper()
	start := time.Now()
	ds := wake.Deliver(context.Background(), []wake.Registration{wake.NewCodexQueue(thread)}, queueText, o)
	timeout := o.Timeout
	if timeout == 0 {
		timeout = wake.DefaultTimeout
	}
	if elapsed := time.Since(start); elapsed > timeout+slack {
		t.Errorf("the attempt took %v with a timeout of %v", elapsed, timeout)
	}
	assertSafe(t, ds, queueText)
	if len(ds) != 1 || ds[0].Transport != wake.CodexQueue {
		t.Fatalf("deliveries = %v, want one of codex", ds)
	}
	return ds[0]
}

// assertArgs checks the arguments a recordArgs codex at path was run with.
func assertArgs(t *testing.T, path string, want ...string) {
	t.Helper()
	b, err := os.ReadFile(path + ".argv")
	if err != nil {
		t.Fatalf("codex did not run: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("codex ran with %q, want %q", got, want)
	}
}

func TestQueueQueued(t *testing.T) {
	codex := script(t, t.TempDir(), "codex", recordArgs)
	d := deliverQueue(t, "019a-thread", wake.Options{Codex: codex})
	if d.State != wake.Queued || d.Detail != "codex: Queued message m-1 for thread 019a-thread." {
		t.Fatalf("delivery = %v, want queued with codex's answer", d)
	}
	assertArgs(t, codex, "queue", "--thread", "019a-thread", "--message", queueText)
}

// Codex runs in this process's environment without the Claude Code inbox
// token, the secret of the process that wakes.
func TestQueueKeepsTheInboxTokenFromCodex(t *testing.T) {
	t.Setenv("CLAUDE_CODE_MESSAGING_TOKEN", secretToken)
	t.Setenv("STICK_WAKE_TEST_KEPT", "kept")
	codex := script(t, t.TempDir(), "codex", `export -p > "$0.env"`)
	if d := deliverQueue(t, "019a-thread", wake.Options{Codex: codex}); d.State != wake.Queued {
		t.Fatalf("delivery = %v, want queued", d)
	}
	b, err := os.ReadFile(codex + ".env")
	if err != nil {
		t.Fatalf("codex did not run: %v", err)
	}
	if env := string(b); strings.Contains(env, secretToken) || strings.Contains(env, "CLAUDE_CODE_MESSAGING_TOKEN") || !strings.Contains(env, "STICK_WAKE_TEST_KEPT") {
		t.Fatalf("codex ran with the inbox token, or without the rest of the environment:\n%s", env)
	}
}

// With no path given, "codex" is looked up on PATH.
func TestQueueFindsCodexOnPath(t *testing.T) {
	dir := t.TempDir()
	codex := script(t, dir, "codex", recordArgs)
	t.Setenv("PATH", dir)
	if d := deliverQueue(t, "019a-thread", wake.Options{}); d.State != wake.Queued {
		t.Fatalf("delivery = %v, want queued", d)
	}
	assertArgs(t, codex, "queue", "--thread", "019a-thread", "--message", queueText)
}

func TestQueueCodexMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if d := deliverQueue(t, "019a-thread", wake.Options{}); d.State != wake.Failed || d.Detail != "codex not found on PATH" {
		t.Fatalf("delivery = %v, want failed, codex not found on PATH", d)
	}
	missing := filepath.Join(t.TempDir(), "codex")
	if d := deliverQueue(t, "019a-thread", wake.Options{Codex: missing}); d.State != wake.Failed || !strings.Contains(d.Detail, "not found") {
		t.Fatalf("delivery = %v, want failed, not found", d)
	}
}

// A non-zero exit status is Failed, with the first line codex wrote to its
// standard error, cleaned, cut, and without the text sent.
func TestQueueRefused(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"thread not found", `echo "error: thread abc not found" >&2; exit 1`,
			"codex exited with status 1: error: thread abc not found"},
		{"escape codes and a second line", `printf '\n\033[31merror:\033]0;title\007 no\tthread\nsecond line\n' >&2; exit 2`,
			"codex exited with status 2: error: no thread"},
		{"nothing said", `exit 3`, "codex exited with status 3"},
		{"the text echoed", `echo "bad message: $5" >&2; exit 1`, "codex exited with status 1: bad message: [redacted]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			codex := script(t, t.TempDir(), "codex", tc.body)
			if d := deliverQueue(t, "abc", wake.Options{Codex: codex}); d.State != wake.Failed || d.Detail != tc.want {
				t.Fatalf("delivery = %v, want failed with %q", d, tc.want)
			}
		})
	}
}

func TestQueueLongError(t *testing.T) {
	codex := script(t, t.TempDir(), "codex", `i=0; while [ $i -lt 3000 ]; do printf 'e'; i=$((i+1)); done >&2; exit 1`)
	d := deliverQueue(t, "abc", wake.Options{Codex: codex})
	if d.State != wake.Failed || len(d.Detail) > 200 || !strings.HasSuffix(d.Detail, "eee…") {
		t.Fatalf("delivery = %v (%d bytes), want failed, cut to 200 bytes", d, len(d.Detail))
	}
}

// A codex that does not finish is stopped at the timeout, with what it
// started, and may have queued the text: Ambiguous. Codex itself is reaped
// by the time Deliver returns; what it started dies with its process group.
func TestQueueHangs(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		orphan     bool
	}{
		{"codex itself", `echo $$ > "$0.pid"; exec sleep 30`, false},
		{"a child holding its output", `sleep 30 & echo $! > "$0.pid"; wait`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			codex := script(t, t.TempDir(), "codex", tc.body)
			d := deliverQueue(t, "abc", wake.Options{Codex: codex, Timeout: 500 * time.Millisecond})
			if d.State != wake.Ambiguous || !strings.Contains(d.Detail, "500ms") {
				t.Fatalf("delivery = %v, want ambiguous after 500ms", d)
			}
			pid := readPid(t, codex+".pid")
			if tc.orphan {
				waitGone(t, pid)
			} else if !gone(pid) {
				t.Fatalf("codex (pid %d) still runs after Deliver returned", pid)
			}
		})
	}
}

// A codex killed by a signal it was not sent may have queued the text.
func TestQueueKilled(t *testing.T) {
	codex := script(t, t.TempDir(), "codex", `kill -9 $$`)
	if d := deliverQueue(t, "abc", wake.Options{Codex: codex}); d.State != wake.Ambiguous {
		t.Fatalf("delivery = %v, want ambiguous", d)
	}
}

// A thread id codex would read as an option is refused before codex runs.
func TestQueueBadThread(t *testing.T) {
	codex := script(t, t.TempDir(), "codex", recordArgs)
	for _, thread := range []string{"", "--help"} {
		if d := deliverQueue(t, thread, wake.Options{Codex: codex}); d.State != wake.Failed {
			t.Fatalf("delivery to %q = %v, want failed", thread, d)
		}
	}
	if _, err := os.Stat(codex + ".argv"); !os.IsNotExist(err) {
		t.Fatalf("codex ran: %v", err)
	}
}

// Codex's output is read to its end but kept only in part, so a chatty
// codex neither blocks nor grows memory.
func TestQueueChatty(t *testing.T) {
	codex := script(t, t.TempDir(), "codex", `head -c 1000000 /dev/zero | tr '\0' 'x'; echo; exit 0`)
	d := deliverQueue(t, "abc", wake.Options{Codex: codex})
	if d.State != wake.Queued || len(d.Detail) > 200 || !bytes.HasSuffix([]byte(d.Detail), []byte("x…")) {
		t.Fatalf("delivery = %v, want queued with a cut detail", d)
	}
}
