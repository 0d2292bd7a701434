//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// These tests run the built binary as a harness would: 'stick mcp' with
// the environment Claude Code or Codex gives it, a fake inbox on a real
// Unix socket and a fake codex on PATH, and other members on the CLI.

// wakeToken is the inbox token the tests give 'stick mcp': it must show
// nowhere stick prints or writes.
const wakeToken = "tok-7c1e5a93-inbox-secret-never-shown"

// quiet is how long a test watches for a wake that must not come. The
// wake loop reacts to the member's bell at once, so a wake that was due
// would show well within it; it bounds a negative check, not a TTL.
const quiet = time.Second

// inboxFake is a Claude Code inbox on a real Unix socket. It records what
// every connection sent and, like a session that queued the message,
// closes the connection once both lines arrived; a hanging one accepts
// and never reads nor closes, until the test ends.
type inboxFake struct {
	path     string
	accepted atomic.Int64
	mu       sync.Mutex
	got      [][]byte
	held     []net.Conn
}

// shortSocketDir returns a fresh directory whose path is short enough for
// a Unix socket's (about 100 bytes, which t.TempDir's may exceed).
func shortSocketDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func newInboxFake(t *testing.T, hang bool) *inboxFake {
	t.Helper()
	f := &inboxFake{path: filepath.Join(shortSocketDir(t), "in.sock")}
	ln, err := net.Listen("unix", f.path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			f.accepted.Add(1)
			if hang {
				f.mu.Lock()
				f.held = append(f.held, conn)
				f.mu.Unlock()
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				f.record(conn)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		f.mu.Lock()
		for _, c := range f.held {
			c.Close()
		}
		f.mu.Unlock()
		wg.Wait()
	})
	return f
}

// record keeps what conn sends until two lines arrived or it ends.
func (f *inboxFake) record(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(safety))
	var got []byte
	buf := make([]byte, 4096)
	for bytes.Count(got, []byte("\n")) < 2 {
		n, err := conn.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	f.mu.Lock()
	f.got = append(f.got, got)
	f.mu.Unlock()
}

// received returns what each recorded connection sent, in order.
func (f *inboxFake) received() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// waitReceived waits until n connections were recorded and returns them.
func (f *inboxFake) waitReceived(t *testing.T, n int) [][]byte {
	t.Helper()
	eventually(t, "the inbox receives a connection", func() bool { return len(f.received()) >= n })
	return f.received()
}

// fakeCodex writes a codex into a directory of its own that records its
// arguments, NUL-terminated, in the returned file and its environment in
// that file's name plus ".env", then writes stderr to its standard error
// and exits with status exit; it returns the directory (for PATH) and the
// file.
func fakeCodex(t *testing.T, stderr string, exit int) (dir, argv string) {
	t.Helper()
	dir = t.TempDir()
	argv = filepath.Join(t.TempDir(), "argv")
	body := "#!/bin/sh\nprintf '%s\\0' \"$@\" > '" + argv + "'\nexport -p > '" + argv + ".env'\n"
	if stderr != "" {
		body += "echo '" + stderr + "' >&2\n"
	}
	body += "exit " + itoa(exit) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "codex"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, argv
}

// waking is a workspace where human:ana works on the CLI and a 'stick
// mcp' started with env has joined, as member, through its join_path tool.
type waking struct {
	b      binRoom
	mcp    *rawMCP
	room   string
	member string
	// replies are every line 'stick mcp' answered the test with.
	replies [][]byte
}

// startWaking starts 'stick mcp' with env over the harness's variables
// (none set unless env sets them, whatever the test's own environment
// holds), and joins the workspace's room through it.
func startWaking(t *testing.T, env ...string) *waking {
	t.Helper()
	b := newBinRoom(t)
	b.ok(t, "join")
	base := []string{"TALKING_STICK_DATA_DIR=" + b.data, "CLAUDE_CODE_MESSAGING_SOCKET=", "CLAUDE_CODE_MESSAGING_TOKEN=", "CODEX_THREAD_ID="}
	w := &waking{b: b, mcp: startRawMCP(t, b.repo, append(base, env...)...)}
	var joined struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				RoomID  string `json:"room_id"`
				AgentID string `json:"agent_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	line := w.call(t, "join_path", `{"context_path":`+jsonString(b.repo)+`}`)
	if err := json.Unmarshal(line, &joined); err != nil || joined.Result.IsError || joined.Result.StructuredContent.AgentID == "" {
		t.Fatalf("join_path: %v\n%s", err, line)
	}
	w.room, w.member = joined.Result.StructuredContent.RoomID, joined.Result.StructuredContent.AgentID
	return w
}

// call calls tool on 'stick mcp' and returns its reply line, kept.
func (w *waking) call(t *testing.T, tool, args string) []byte {
	t.Helper()
	line, _ := w.mcp.call(tool, args)
	w.replies = append(w.replies, line)
	return line
}

// note posts a note as human:ana with the note flags args and returns its
// event_seq.
func (w *waking) note(t *testing.T, args ...string) int64 {
	t.Helper()
	var res stick.PostResult
	if err := json.Unmarshal([]byte(w.b.ok(t, append([]string{"note", "--json"}, args...)...)), &res); err != nil {
		t.Fatal(err)
	}
	return res.Event.Seq
}

// state returns the room's state as 'stick state --json' shows it, and
// the member's wake status in it (nil when none).
func (w *waking) state(t *testing.T) (stick.RoomStatus, *stick.WakeStatus) {
	t.Helper()
	var st stick.RoomStatus
	if err := json.Unmarshal([]byte(w.b.ok(t, "state", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	for _, m := range st.Members {
		if m.AgentID == w.member {
			return st, m.Wake
		}
	}
	t.Fatalf("the member %s is not in the room: %+v", w.member, st.Members)
	return st, nil
}

// waitWake waits until the member's last wake, reported after since,
// went through transport with state, and returns its wake status.
func (w *waking) waitWake(t *testing.T, since time.Time, state, transport string) *stick.WakeStatus {
	t.Helper()
	for deadline := time.Now().Add(safety); ; time.Sleep(10 * time.Millisecond) {
		_, wk := w.state(t)
		if wk != nil && wk.LastState == state && wk.LastTransport == transport && wk.LastAt != nil && wk.LastAt.After(since) {
			return wk
		}
		if time.Now().After(deadline) {
			t.Fatalf("the member's wake is %+v; want the last through %s %s within %v", wk, transport, state, safety)
		}
	}
}

// waitTransports waits until the member's wake status lists transports
// (its 'stick mcp' registers them after the join, in the background), and
// checks that no wake went yet.
func (w *waking) waitTransports(t *testing.T, transports ...string) {
	t.Helper()
	var wk *stick.WakeStatus
	eventually(t, "the member's transports registered", func() bool {
		_, wk = w.state(t)
		return wk != nil && slices.Equal(wk.Transports, transports)
	})
	if wk.LastState != "" || wk.LastTransport != "" || wk.LastAt != nil {
		t.Fatalf("a wake went before any note: %+v", wk)
	}
}

// settle waits until the state shows the note seq committed, then watches
// quiet long for a wake that must not come.
func (w *waking) settle(t *testing.T, seq int64) {
	t.Helper()
	eventually(t, "the note committed", func() bool {
		st, _ := w.state(t)
		return st.LastEventSeq >= seq
	})
	time.Sleep(quiet)
}

// notice is the text that wakes the member for a note from human:ana.
func (w *waking) notice() string {
	return "stick: human:ana addressed you in room " + w.room + ". Call the sync tool of stick (room_id " + w.room + ") to read it."
}

// inboxLines are the exact bytes an inbox receives for notice.
func inboxLines(notice string) string {
	return `{"type":"auth","token":"` + wakeToken + `"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"` + notice + `"}}` + "\n"
}

// assertNoToken checks that the inbox token shows in nothing stick prints
// or keeps: the CLI's state, events, export and another member's sync,
// every MCP reply, the data directory's files (the database and its WAL
// among them) while 'stick mcp' runs and after, and its standard error.
// It ends 'stick mcp'.
func (w *waking) assertNoToken(t *testing.T) {
	t.Helper()
	for _, args := range [][]string{
		{"state", "--json"}, {"state"}, {"events", "--json"}, {"events"},
		{"export", "--format", "json"}, {"export", "--format", "markdown"}, {"sync", "--json"},
	} {
		r := w.b.run(t, args...)
		if r.code != 0 {
			t.Fatalf("stick %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, wakeToken) {
			t.Errorf("stick %s shows the inbox token:\n%s%s", strings.Join(args, " "), r.stdout, r.stderr)
		}
	}
	w.call(t, "get_room_state", `{"room_id":"`+w.room+`"}`)
	w.call(t, "get_room_events", `{"room_id":"`+w.room+`"}`)
	for _, line := range w.replies {
		if bytes.Contains(line, []byte(wakeToken)) {
			t.Errorf("stick mcp answered with the inbox token: %s", line)
		}
	}
	w.assertDataClean(t)
	w.stop(t)
	if strings.Contains(w.mcp.stderr.String(), wakeToken) {
		t.Errorf("stick mcp wrote the inbox token to stderr:\n%s", w.mcp.stderr.String())
	}
	w.assertDataClean(t)
}

// assertDataClean checks that no file under the data directory holds the
// inbox token.
func (w *waking) assertDataClean(t *testing.T) {
	t.Helper()
	sqlite := false
	err := filepath.WalkDir(w.b.data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil // a WAL removed at a checkpoint, a socket
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		sqlite = sqlite || filepath.Base(path) == "rooms.sqlite"
		if bytes.Contains(b, []byte(wakeToken)) {
			t.Errorf("%s holds the inbox token", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sqlite {
		t.Fatalf("no database under the data directory %s", w.b.data)
	}
}

// stop ends 'stick mcp' as its harness does, by closing its input.
func (w *waking) stop(t *testing.T) {
	t.Helper()
	w.mcp.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- w.mcp.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stick mcp at the end of its input: %v\n%s", err, w.mcp.stderr.String())
		}
	case <-time.After(safety):
		_ = w.mcp.cmd.Process.Kill()
		<-done
		t.Fatalf("stick mcp did not end at the end of its input\n%s", w.mcp.stderr.String())
	}
}

// A note addressed to an idle 'stick mcp' member wakes its Claude Code
// session through the inbox, with a notice that names the sender and the
// room and says how to read it, never the note; the state shows the wake.
// More notes before the member reads wake it no more; once it read them,
// the next one wakes it again.
func TestWakeClaudeInbox(t *testing.T) {
	t.Parallel()
	inbox := newInboxFake(t, false)
	w := startWaking(t, "CLAUDE_CODE_MESSAGING_SOCKET="+inbox.path, "CLAUDE_CODE_MESSAGING_TOKEN="+wakeToken)
	w.waitTransports(t, "claude-inbox")

	first := w.note(t, "--to", w.member, "secret plan body")
	got := inbox.waitReceived(t, 1)
	want := inboxLines(w.notice())
	if string(got[0]) != want {
		t.Fatalf("the inbox received:\n%q\nwant:\n%q", got[0], want)
	}
	if strings.Contains(string(got[0]), "secret plan body") {
		t.Fatalf("the notice carries the note's body: %q", got[0])
	}
	woken := w.waitWake(t, time.Time{}, "queued", "claude-inbox")
	var st stick.RoomStatus
	if err := json.Unmarshal(structured(t, w.call(t, "get_room_state", `{"room_id":"`+w.room+`"}`)), &st); err != nil {
		t.Fatal(err)
	}
	if wk := memberWake(st, w.member); wk == nil || wk.LastState != "queued" || wk.LastTransport != "claude-inbox" || !slices.Equal(wk.Transports, []string{"claude-inbox"}) {
		t.Fatalf("get_room_state shows the member's wake as %+v", wk)
	}

	// Once per unread batch: a second note before the member reads wakes nobody.
	second := w.note(t, "--to", w.member, "second secret body")
	w.settle(t, second)
	if n := inbox.accepted.Load(); n != 1 {
		t.Fatalf("%d connections to the inbox after a second note the member has not read; want 1", n)
	}

	var synced struct {
		Addressed []stick.Event `json:"addressed"`
	}
	if err := json.Unmarshal(structured(t, w.call(t, "sync", `{"room_id":"`+w.room+`"}`)), &synced); err != nil {
		t.Fatal(err)
	}
	var texts []string
	var seqs []int64
	for _, e := range synced.Addressed {
		texts, seqs = append(texts, e.Text), append(seqs, e.Seq)
	}
	if !slices.Equal(texts, []string{"secret plan body", "second secret body"}) || !slices.Equal(seqs, []int64{first, second}) {
		t.Fatalf("sync addressed %v %v; want both notes, #%d and #%d", texts, seqs, first, second)
	}

	// Read, the member is woken by the next note again.
	w.note(t, "--to", w.member, "third secret body")
	got = inbox.waitReceived(t, 2)
	if string(got[1]) != want {
		t.Fatalf("the second wake sent:\n%q\nwant:\n%q", got[1], want)
	}
	w.waitWake(t, *woken.LastAt, "queued", "claude-inbox")
	if n := inbox.accepted.Load(); n != 2 {
		t.Fatalf("%d connections to the inbox; want 2", n)
	}
	w.assertNoToken(t)
}

// An inbox that takes the connection and never answers leaves the wake
// ambiguous, and no other transport is tried: the session may already be
// awake, and nobody is woken twice.
func TestWakeHangingInboxIsAmbiguous(t *testing.T) {
	t.Parallel()
	inbox := newInboxFake(t, true)
	dir, argv := fakeCodex(t, "", 0)
	w := startWaking(t, "CLAUDE_CODE_MESSAGING_SOCKET="+inbox.path, "CLAUDE_CODE_MESSAGING_TOKEN="+wakeToken,
		"CODEX_THREAD_ID=019a-thread-hang", "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	w.waitTransports(t, "claude-inbox", "codex-queue")

	w.note(t, "--to", w.member, "secret plan body")
	w.waitWake(t, time.Time{}, "ambiguous", "claude-inbox")
	if n := inbox.accepted.Load(); n != 1 {
		t.Fatalf("%d connections to the inbox; want 1", n)
	}
	if _, err := os.Stat(argv); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("codex ran after an ambiguous inbox delivery: %v", err)
	}
	w.assertNoToken(t)
}

// An inbox that is not there fails the delivery certainly, so the Codex
// thread is queued next: `codex queue --thread ID --message NOTICE`, and
// the state shows whether codex queued it.
func TestWakeFallsBackToCodex(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, stderr string
		exit         int
		state        string
	}{
		{"queued", "", 0, "queued"},
		{"thread not found", "error: thread not found", 1, "failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, argv := fakeCodex(t, tc.stderr, tc.exit)
			const thread = "019a-thread-e2e"
			w := startWaking(t, "CLAUDE_CODE_MESSAGING_SOCKET="+filepath.Join(shortSocketDir(t), "missing.sock"),
				"CLAUDE_CODE_MESSAGING_TOKEN="+wakeToken, "CODEX_THREAD_ID="+thread, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			w.waitTransports(t, "claude-inbox", "codex-queue")

			w.note(t, "--to", w.member, "secret plan body")
			w.waitWake(t, time.Time{}, tc.state, "codex-queue")
			b, err := os.ReadFile(argv)
			if err != nil {
				t.Fatalf("codex did not run: %v", err)
			}
			want := []string{"queue", "--thread", thread, "--message", w.notice()}
			if got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"); !slices.Equal(got, want) {
				t.Fatalf("codex ran with %q; want %q", got, want)
			}
			// The inbox's token is no business of codex's.
			env, err := os.ReadFile(argv + ".env")
			if err != nil || !strings.Contains(string(env), thread) {
				t.Fatalf("codex did not record its environment: %v\n%s", err, env)
			}
			if strings.Contains(string(env), wakeToken) {
				t.Errorf("codex ran with the inbox token in its environment")
			}
			w.assertNoToken(t)
		})
	}
}

// A note to the whole room, with no recipient or addressed to all, wakes
// nobody; a note addressed to the member then does.
func TestWakeNotByBroadcast(t *testing.T) {
	t.Parallel()
	inbox := newInboxFake(t, false)
	w := startWaking(t, "CLAUDE_CODE_MESSAGING_SOCKET="+inbox.path, "CLAUDE_CODE_MESSAGING_TOKEN="+wakeToken)
	w.waitTransports(t, "claude-inbox")

	w.note(t, "a note to the room")
	last := w.note(t, "--to", "all", "a note to all")
	w.settle(t, last)
	if n := inbox.accepted.Load(); n != 0 {
		t.Fatalf("%d connections to the inbox after notes to the whole room; want none", n)
	}
	if _, wk := w.state(t); wk.LastState != "" {
		t.Fatalf("the member's wake after notes to the whole room: %+v", wk)
	}

	w.note(t, "--to", w.member, "now you")
	if got := inbox.waitReceived(t, 1); string(got[0]) != inboxLines(w.notice()) {
		t.Fatalf("the inbox received %q", got[0])
	}
	w.waitWake(t, time.Time{}, "queued", "claude-inbox")
	w.assertNoToken(t)
}

// structured returns the structuredContent of a successful tools/call
// reply line.
func structured(t *testing.T, line []byte) json.RawMessage {
	t.Helper()
	var r struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &r); err != nil || r.Result.IsError {
		t.Fatalf("tools/call failed: %v\n%s", err, line)
	}
	return r.Result.StructuredContent
}

// memberWake returns the wake status of member agentID in st.
func memberWake(st stick.RoomStatus, agentID string) *stick.WakeStatus {
	for _, m := range st.Members {
		if m.AgentID == agentID {
			return m.Wake
		}
	}
	return nil
}
