package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/proxy"
	"github.com/stickhq/stick/wake"
)

// inboxSecret is the token of the fake inbox's session.
const inboxSecret = "inbox-token-5f3a9c0e71d24b68"

// inbox is a Claude Code session's inbox: a Unix socket that reads what
// each connection sends, keeps its lines, and closes it, as the inbox
// does once it has queued the message.
type inbox struct {
	path  string
	conns chan []string
}

// newInbox listens on a socket in a short temporary directory (a socket's
// path must fit in about 100 bytes).
func newInbox(t *testing.T) *inbox {
	t.Helper()
	dir, err := os.MkdirTemp("", "wk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	in := &inbox{path: filepath.Join(dir, "inbox.sock"), conns: make(chan []string, 16)}
	ln, err := net.Listen("unix", in.path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { in.serve(conn.(*net.UnixConn)) })
		}
	})
	return in
}

// serve reads the two lines a client sends, closes its side, and keeps
// them with whatever the client sent after.
func (in *inbox) serve(conn *net.UnixConn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	var lines []string
	for range 2 {
		line, err := r.ReadString('\n')
		if line != "" {
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
		if err != nil {
			break
		}
	}
	_ = conn.CloseWrite()
	if rest, _ := io.ReadAll(r); len(rest) > 0 {
		lines = append(lines, string(rest))
	}
	in.conns <- lines
}

// next returns the lines of the next connection.
func (in *inbox) next(t *testing.T, what string) []string {
	t.Helper()
	select {
	case lines := <-in.conns:
		return lines
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: nothing reached the inbox", what)
		return nil
	}
}

// none checks that no connection reaches the inbox within d.
func (in *inbox) none(t *testing.T, d time.Duration, what string) {
	t.Helper()
	select {
	case lines := <-in.conns:
		t.Fatalf("%s: the inbox was reached: %q", what, lines)
	case <-time.After(d):
	}
}

// noticed checks that lines are exactly what wakes a session for a note
// of sender in room: the auth line with the session's token, then a user
// message naming the sender and the room and how to read it, never the
// note's text.
func noticed(t *testing.T, lines []string, sender, room string, hidden ...string) {
	t.Helper()
	want := []string{
		`{"type":"auth","token":"` + inboxSecret + `"}`,
		`{"type":"user","message":{"role":"user","content":"stick: ` + sender + ` addressed you in room ` + room +
			`. Call the sync tool of stick (room_id ` + room + `) to read it."}}`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the inbox received\n%q\nwant\n%q", lines, want)
	}
	for _, h := range hidden {
		if strings.Contains(lines[1], h) {
			t.Fatalf("the notice carries %q: %s", h, lines[1])
		}
	}
}

// eventually polls cond until it holds, failing after a generous bound.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen", what)
		}
	}
}

// A harness behind 'stick mcp --server' whose environment names its
// Claude Code inbox is woken by its proxy: a note addressed to it
// delivers the two lines of a wake (its token, a notice naming the
// sender, no message body), and the hub's state shows it queued; a second
// note before it reads wakes nothing more; once it has read, the next
// one wakes it again. The token reaches neither the hub nor a log; once
// the member left, the proxy stops asking the hub.
func TestProxyWakesItsHarness(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	box := newInbox(t)
	r := connect(t, h.url, "claude-code", []string{"STICK_TOKEN=" + token,
		"CLAUDE_CODE_MESSAGING_SOCKET=" + box.path, "CLAUDE_CODE_MESSAGING_TOKEN=" + inboxSecret})
	j := r.ok("join_path", map[string]any{"name": "wake-me"})
	room, id := str(j, "room_id"), str(j, "agent_id")
	path := "/api/v1/rooms/" + room
	peer := h.client(token, "ci-runner")
	sender := str(peer.ok(post, "/api/v1/rooms", map[string]any{"name": "wake-me"}), "agent_id")
	eventually(t, "the proxy's registration", func() bool {
		ts := list(wakeOf(t, peer, path, id), "transports")
		return len(ts) == 1 && ts[0] == "claude-inbox"
	})

	const body = "the parser fails on empty input"
	peer.ok(post, path+"/notes", map[string]any{"text": body, "to": []string{id}})
	noticed(t, box.next(t, "a note to the member"), sender, room, body)
	eventually(t, "wake.last_state queued", func() bool { return str(wakeOf(t, peer, path, id), "last_state") == "queued" })

	peer.ok(post, path+"/notes", map[string]any{"text": "and on a lone brace", "to": []string{id}})
	box.none(t, time.Second, "a second note before the member read")
	if res := r.ok("sync", map[string]any{"room_id": room}); len(list(res, "addressed")) != 2 {
		t.Fatalf("sync: %v", res)
	}
	peer.ok(post, path+"/notes", map[string]any{"text": "one more", "to": []string{id}})
	noticed(t, box.next(t, "a note after the member read"), sender, room, "one more")
	box.none(t, 300*time.Millisecond, "after the third note's wake")
	peer.polls(1) // the proxy asks the hub for the member's next wake
	r.ok("leave_path", map[string]any{"room_id": room})
	peer.polls(0) // and asks no more once the member left

	state := peer.do(get, path, nil)
	for what, text := range map[string]string{"the room's state": string(state.body), "the proxy's log": r.stderr.String(), "the hub's log": h.proc.Stderr()} {
		if strings.Contains(text, inboxSecret) {
			t.Fatalf("%s holds the inbox's token:\n%s", what, text)
		}
	}
}

// callsTool signals seen each time a request of the proxy calling tool on
// the hub's /mcp leaves: the proxy has begun that call.
type callsTool struct {
	tool string
	seen chan<- struct{}
}

func (c callsTool) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && strings.HasSuffix(r.URL.Path, "/mcp") {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
		if bytes.Contains(b, []byte(`"name":"`+c.tool+`"`)) {
			select {
			case c.seen <- struct{}{}:
			default:
			}
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// startProxy runs a proxy in this process for a harness named
// claude-code, woken through regs, whose requests go through tr; it
// returns the harness's MCP client.
func startProxy(t *testing.T, h *hub, token string, tr http.RoundTripper, regs []wake.Registration) *mcp.ClientSession {
	t.Helper()
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	var logMu sync.Mutex
	p, err := proxy.New(proxy.Config{Server: h.url, Token: token, Harness: self, DataDir: t.TempDir(), Transport: tr,
		Wake: regs, WakeOptions: wake.Options{Timeout: 5 * time.Second}, Log: lockedWriter{&logMu, &log}})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "1.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the proxy: %v", err)
		}
		logMu.Lock()
		defer logMu.Unlock()
		if strings.Contains(log.String(), inboxSecret) {
			t.Errorf("the proxy logged the inbox's token:\n%s", log.String())
		}
		if t.Failed() {
			t.Logf("the proxy said:\n%s", log.String())
		}
	})
	return cs
}

// lockedWriter serialises the writes of a proxy's goroutines.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// No wake goes to a harness while it waits for the stick through its
// proxy: a note addressed to it (not an interrupt) does not reach its
// inbox, and the wait's result gives it the note, so none goes after
// either, as with a local 'stick mcp'. Once it has read, and nothing
// waits, the next note wakes it.
func TestProxyWaitingIsNotWoken(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	box := newInbox(t)
	waits := make(chan struct{}, 1)
	cs := startProxy(t, h, token, callsTool{"wait_for_turn", waits}, []wake.Registration{wake.NewClaudeInbox(box.path, inboxSecret)})
	holder := h.client(token, "ci-runner")
	j := holder.ok(post, "/api/v1/rooms", map[string]any{"name": "busy"})
	room, sender := str(j, "room_id"), str(j, "agent_id")
	path := "/api/v1/rooms/" + room
	turn := holder.ok(post, path+"/wait", map[string]any{"max_wait_ms": 0})
	if str(turn, "status") != "your_turn" {
		t.Fatalf("the holder: %v", turn)
	}
	id := str(call(t, cs, "join_path", map[string]any{"name": "busy"}, ""), "agent_id")
	eventually(t, "the proxy's registration", func() bool { return len(list(wakeOf(t, holder, path, id), "transports")) == 1 })

	waited := make(chan map[string]any, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait_for_turn", Arguments: map[string]any{"room_id": room, "max_wait_ms": 60000}})
		if err != nil {
			t.Errorf("wait_for_turn: %v", err)
			close(waited)
			return
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		waited <- out
	}()
	select {
	case <-waits:
	case <-time.After(30 * time.Second):
		t.Fatal("the proxy did not forward the wait")
	}
	note := holder.ok(post, path+"/notes", map[string]any{"text": "look at the lexer", "to": []string{id}})
	if seq := num(holder.ok(get, path, nil), "last_event_seq"); seq < num(obj(note, "event"), "event_seq") {
		t.Fatalf("the note is not in the room's state: last_event_seq %d, note %v", seq, note)
	}
	box.none(t, 1500*time.Millisecond, "a note to a member that waits for the stick")
	if st := wakeOf(t, holder, path, id); str(st, "last_state") != "" {
		t.Fatalf("a member that waits was woken: %v", st)
	}

	holder.ok(post, path+"/release", map[string]any{"lease_id": str(turn, "lease_id"), "expected_turn_id": num(turn, "turn_id"),
		"handoff": map[string]any{"status": "Lexer looked at.", "next_action": "Fix the lexer."}})
	w := within(t, waited, "the member's your_turn")
	if told := list(w, "addressed"); str(w, "status") != "your_turn" || len(told) != 1 || str(told[0].(map[string]any), "text") != "look at the lexer" {
		t.Fatalf("the member's wait: %v", w)
	}
	box.none(t, time.Second, "a note the member's wait gave it")
	call(t, cs, "sync", map[string]any{"room_id": room}, "")
	holder.ok(post, path+"/notes", map[string]any{"text": "and the parser", "to": []string{id}})
	noticed(t, box.next(t, "a note once the member read and nothing waits"), sender, room, "and the parser")
	eventually(t, "wake.last_state queued", func() bool { return str(wakeOf(t, holder, path, id), "last_state") == "queued" })
}
