//go:build unix

package wake_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/wake"
)

// inboxText is sent in the inbox tests: quotes, HTML characters, a
// non-ASCII letter and a newline, which JSON must carry unchanged.
const inboxText = "stick: alice addressed you in room \"x\" <b> & é\nsecond line"

// wantLines are the exact bytes the inbox must receive for inboxText.
const wantLines = `{"type":"auth","token":"` + secretToken + `"}` + "\n" +
	`{"type":"user","message":{"role":"user","content":"stick: alice addressed you in room \"x\" <b> & é\nsecond line"}}` + "\n"

// readLines reads the two lines a client sends and checks they are the
// expected ones, byte for byte.
func readLines(t *testing.T, r *bufio.Reader) {
	var got string
	for range 2 {
		line, err := r.ReadString('\n')
		got += line
		if err != nil {
			t.Errorf("reading the lines: %v (got %q)", err, got)
			return
		}
	}
	if got != wantLines {
		t.Errorf("the inbox received\n%q\nwant\n%q", got, wantLines)
	}
}

// deliverInbox delivers inboxText to the inbox at path and checks the
// attempt stayed within its timeout.
func deliverInbox(t *testing.T, ctx context.Context, path string, timeout time.Duration) wake.Delivery {
	t.Helper()
	start := time.Now()
	ds := wake.Deliver(ctx, []wake.Registration{wake.NewClaudeInbox(path, secretToken)}, inboxText, wake.Options{Timeout: timeout})
	if elapsed := time.Since(start); elapsed > timeout+slack {
		t.Errorf("the attempt took %v with a timeout of %v", elapsed, timeout)
	}
	assertSafe(t, ds, inboxText)
	if len(ds) != 1 || ds[0].Transport != wake.ClaudeInbox {
		t.Fatalf("deliveries = %v, want one of the inbox", ds)
	}
	return ds[0]
}

// An inbox that reads both lines and closes the connection took the text;
// the client wrote the two lines and nothing else.
func TestInboxQueued(t *testing.T) {
	path := fakeInbox(t, func(conn *net.UnixConn) {
		r := bufio.NewReader(conn)
		readLines(t, r)
		if err := conn.CloseWrite(); err != nil {
			t.Error(err)
		}
		if rest, err := io.ReadAll(r); err != nil || len(rest) > 0 {
			t.Errorf("after the two lines the client sent %q (%v)", rest, err)
		}
	})
	d := deliverInbox(t, context.Background(), path, 5*time.Second)
	if d.State != wake.Queued || d.Detail == "" {
		t.Fatalf("delivery = %v, want queued with a detail", d)
	}
}

// What the inbox answers decides: a refusal is Failed with its reason
// (never echoing the token), anything else Queued.
func TestInboxAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		want         wake.State
		detail       string
	}{
		{"bad token", `{"ok":false,"error":"bad token"}`, wake.Failed, "bad token"},
		{"a refusal echoing the token", `{"ok":false,"error":"bad token ` + secretToken + `"}`, wake.Failed, "bad token [redacted]"},
		{"an error alone", `{"error":{"message":"session \u001b[31mended"}}`, wake.Failed, "session ended"},
		{"ok false alone", `{"ok":false}`, wake.Failed, "refused"},
		{"ok", `{"ok":true}`, wake.Queued, "took the message"},
		{"not JSON", `thanks`, wake.Queued, "took the message"},
		{"no newline before closing", `{"ok":false,"error":"bad token"}`, wake.Failed, "bad token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fakeInbox(t, func(conn *net.UnixConn) {
				readLines(t, bufio.NewReader(conn))
				end := "\n"
				if tc.name == "no newline before closing" {
					end = ""
				}
				if _, err := io.WriteString(conn, tc.answer+end); err != nil {
					t.Error(err)
				}
			})
			d := deliverInbox(t, context.Background(), path, 5*time.Second)
			if d.State != tc.want || !strings.Contains(d.Detail, tc.detail) {
				t.Fatalf("delivery = %v, want %s with %q", d, tc.want, tc.detail)
			}
		})
	}
}

// An inbox that takes the lines and never answers may have queued the
// text: Ambiguous, once the timeout passed and no later.
func TestInboxHangs(t *testing.T) {
	path := fakeInbox(t, func(conn *net.UnixConn) {
		r := bufio.NewReader(conn)
		readLines(t, r)
		_, _ = io.Copy(io.Discard, r) // until the client gives up
	})
	d := deliverInbox(t, context.Background(), path, 200*time.Millisecond)
	if d.State != wake.Ambiguous || !strings.Contains(d.Detail, "200ms") {
		t.Fatalf("delivery = %v, want ambiguous after 200ms", d)
	}
}

// A cancelled context ends the wait for an answer at once, long before the
// timeout.
func TestInboxCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := fakeInbox(t, func(conn *net.UnixConn) {
		r := bufio.NewReader(conn)
		readLines(t, r)
		cancel()
		_, _ = io.Copy(io.Discard, r)
	})
	start := time.Now()
	d := deliverInbox(t, ctx, path, time.Minute)
	if d.State != wake.Ambiguous || !strings.Contains(d.Detail, "cancelled") {
		t.Fatalf("delivery = %v, want ambiguous, cancelled", d)
	}
	if elapsed := time.Since(start); elapsed > slack {
		t.Errorf("the cancelled attempt took %v", elapsed)
	}
}

// No socket, a regular file, or a socket nobody listens on: nothing was
// sent, Failed.
func TestInboxUnreachable(t *testing.T) {
	dir := shortDir(t)
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	closed := filepath.Join(dir, "closed.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: closed, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(closed); err != nil {
		t.Fatalf("the closed listener's socket file: %v", err)
	}

	for _, tc := range []struct{ name, path, detail string }{
		{"missing", filepath.Join(dir, "missing.sock"), "no inbox socket at"},
		{"a regular file", file, file}, // ECONNREFUSED or ENOTSOCK, by system
		{"a closed listener", closed, "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := deliverInbox(t, context.Background(), tc.path, 5*time.Second)
			if d.State != wake.Failed || !strings.Contains(d.Detail, tc.detail) {
				t.Fatalf("delivery = %v, want failed with %q", d, tc.detail)
			}
		})
	}
}

// A registration without a socket path or a token is not tried.
func TestInboxIncomplete(t *testing.T) {
	for _, reg := range []wake.Registration{
		{Transport: wake.ClaudeInbox, Address: "/nonexistent/inbox.sock"},
		wake.NewClaudeInbox("", secretToken),
	} {
		ds := wake.Deliver(context.Background(), []wake.Registration{reg}, inboxText, wake.Options{})
		assertSafe(t, ds, inboxText)
		if states(ds) != "claude-inbox:failed" {
			t.Errorf("Deliver(%v) = %v, want failed", reg, ds)
		}
	}
}
