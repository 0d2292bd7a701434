package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

func init() { testproc.Register("harness", harness) }

// harness: args pidfile and the arguments of 'stick'. A stand-in for a
// coding-agent harness on another host: it runs 'stick mcp --server URL'
// (this test binary as stick) on its own stdin and stdout, as a harness
// runs the server it registered, writes the proxy's pid into pidfile, and
// waits for it. The proxy does not die with it: it must see its harness
// exit, as a real proxy does.
func harness(args []string) int {
	cmd, err := reexec.Command(context.Background(), "stick", args[1:]...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp := args[0] + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600); err != nil || os.Rename(tmp, args[0]) != nil {
		fmt.Fprintln(os.Stderr, "cannot write the pid file", err)
		return 1
	}
	_ = cmd.Wait()
	return cmd.ProcessState.ExitCode()
}

// remote is a harness on another host behind its proxy: an MCP client
// over the harness's stdio, which is the proxy's.
type remote struct {
	t  *testing.T
	cs *mcp.ClientSession
	// harness is the harness process, proxy the proxy's.
	harness *exec.Cmd
	proxy   procid.Identity
	stderr  stderrFile
}

// stderrFile is a file the harness's and proxy's stderr is written to.
type stderrFile string

func (l stderrFile) String() string {
	b, _ := os.ReadFile(string(l))
	return string(b)
}

// connect starts a harness named client whose proxy forwards to url, with
// the environment env (its token) and the extra arguments of 'stick mcp'.
// Each harness has a data directory of its own: it runs on another host.
// A harness is woken only through what env names: the session that runs
// the tests is never woken by them.
func connect(t *testing.T, url, client string, env []string, args ...string) *remote {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "proxy.pid")
	cmd := testproc.Command(t, "harness", append([]string{pidfile, "mcp", "--server", url}, args...)...)
	cmd.Env = append(cmd.Env, "CLAUDE_CODE_MESSAGING_SOCKET=", "CLAUDE_CODE_MESSAGING_TOKEN=", "CODEX_THREAD_ID=")
	cmd.Env = append(cmd.Env, append([]string{"TALKING_STICK_DATA_DIR=" + t.TempDir()}, env...)...)
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close() // the harness has its own copy
	r := &remote{t: t, harness: cmd, stderr: stderrFile(stderr.Name())}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1.0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatalf("start the proxy of %s: %v", client, err)
	}
	r.cs = cs
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(pidfile)
		if err == nil {
			pid, _ := strconv.Atoi(string(b))
			if r.proxy, err = procid.Of(pid); err != nil {
				t.Fatalf("the proxy's process: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the harness wrote no proxy pid: %v\n%s", err, r.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() {
		cs.Close()
		r.killProxy()
		if t.Failed() {
			t.Logf("%s's harness and proxy said:\n%s", client, r.stderr)
		}
	})
	return r
}

// killProxy SIGKILLs the proxy, if it still runs, and waits until it is
// gone.
func (r *remote) killProxy() {
	r.t.Helper()
	if procid.Check(r.proxy) == procid.Gone {
		return
	}
	if err := syscall.Kill(r.proxy.PID, syscall.SIGKILL); err != nil {
		r.t.Fatal(err)
	}
	r.waitGone(r.proxy, "the killed proxy")
}

// killHarness SIGKILLs the harness and reaps it.
func (r *remote) killHarness() {
	r.t.Helper()
	if err := r.harness.Process.Kill(); err != nil {
		r.t.Fatal(err)
	}
	_ = r.harness.Wait()
}

func (r *remote) waitGone(p procid.Identity, what string) {
	r.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); procid.Check(p) != procid.Gone; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("%s is still running", what)
		}
	}
}

// said waits until the harness's and proxy's stderr has line at least n
// times.
func (r *remote) said(line string, n int) {
	r.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); strings.Count(r.stderr.String(), line) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("the proxy did not say %q %d times:\n%s", line, n, r.stderr)
		}
	}
}

// call calls a tool through the proxy; res is its structured content.
func (r *remote) call(tool string, args map[string]any) (res map[string]any, text string, isError bool) {
	r.t.Helper()
	out, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", tool, err, r.stderr)
	}
	b, _ := json.Marshal(out.StructuredContent)
	_ = json.Unmarshal(b, &res)
	if len(out.Content) > 0 {
		if tc, ok := out.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	return res, text, out.IsError
}

// ok calls a tool that must succeed.
func (r *remote) ok(tool string, args map[string]any) map[string]any {
	r.t.Helper()
	res, text, isErr := r.call(tool, args)
	if isErr {
		r.t.Fatalf("%s: %s", tool, text)
	}
	return res
}

// fails calls a tool that must fail with code.
func (r *remote) fails(tool string, args map[string]any, code stick.Code) map[string]any {
	r.t.Helper()
	res, text, isErr := r.call(tool, args)
	if e := obj(res, "error"); !isErr || str(e, "code") != string(code) {
		r.t.Fatalf("%s: want %s, got %s", tool, code, text)
	}
	return res
}

// wait calls wait_for_turn in the background; the result arrives on the
// channel.
func (r *remote) wait(room string, maxWait int) <-chan map[string]any {
	done := make(chan map[string]any, 1)
	go func() {
		res, text, isErr := r.call("wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": maxWait})
		if isErr {
			r.t.Errorf("wait_for_turn: %s", text)
		}
		done <- res
	}()
	return done
}

// within returns what done delivers, failing after a generous bound.
func within(t *testing.T, done <-chan map[string]any, what string) map[string]any {
	t.Helper()
	select {
	case res := <-done:
		return res
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not come", what)
		return nil
	}
}

// lease is the lease arguments of a your_turn.
func lease(w map[string]any) map[string]any {
	return map[string]any{"room_id": str(w, "room_id"), "lease_id": str(w, "lease_id"), "expected_turn_id": num(w, "turn_id")}
}

// released returns the arguments of a release of w's turn.
func released(w map[string]any, status string) map[string]any {
	args := lease(w)
	args["handoff"] = map[string]any{"status": status, "next_action": "Take it from here."}
	return args
}

// teamHub starts a hub whose one token, "Alex's Team", has the operator
// role (its harnesses set their rooms' policy), and returns it with the
// token's secret.
func teamHub(t *testing.T) (*hub, string) {
	t.Helper()
	data := t.TempDir()
	secrets, env := makeTokens(t, data, tokenSpec{"Alex's Team", stick.AccessOperator})
	return startHub(t, data, env), secrets["Alex's Team"]
}

// decoded is v as JSON decodes it, to compare values whatever the order
// of their keys.
func decoded(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The turn loop through two proxies of one token and one client, one
// given its token in the environment, the other in a file: each harness
// session is a member of its own; the tools, instructions, results, texts
// and error codes are those of 'stick mcp'; a release's handoff reaches
// the peer's your_turn; and the lease is kept by the proxy's stream.
func TestProxyTurnLoop(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := connect(t, h.url, "claude-code", []string{"STICK_TOKEN=" + token})
	b := connect(t, h.url, "claude-code", nil, "--token-file", file)

	tools, err := a.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := mcpserver.ToolList(mcpserver.AllTools)
	if !reflect.DeepEqual(decoded(t, tools.Tools), decoded(t, want)) || len(want) < 20 {
		t.Errorf("the proxy lists other tools than 'stick mcp'")
	}
	if in := a.cs.InitializeResult().Instructions; in != mcpserver.ProxyInstructions(mcpserver.AllTools) {
		t.Errorf("instructions: %q", in)
	}

	ja := a.ok("join_path", map[string]any{"name": "release-review"})
	jb := b.ok("join_path", map[string]any{"name": "release-review"})
	room, ida, idb := str(ja, "room_id"), str(ja, "agent_id"), str(jb, "agent_id")
	if ida == idb || !strings.HasPrefix(ida, "claude-code:") || !strings.HasSuffix(ida, "@alex-s-team") || str(jb, "room_id") != room {
		t.Fatalf("two harness sessions of one token and client: %s and %s", ida, idb)
	}
	turn := a.ok("wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 0})
	if _, text, _ := a.call("get_room_state", map[string]any{"room_id": room}); !strings.Contains(text, ida) {
		t.Fatalf("state: %s", text)
	}
	if str(turn, "status") != "your_turn" || !strings.Contains(str(turn, "next_step"), "this server keeps it alive between them") {
		t.Fatalf("a proxied holder's lease is kept: %v", turn)
	}
	b.fails("release_stick", map[string]any{"room_id": room, "lease_id": "lease_0", "expected_turn_id": 1,
		"handoff": map[string]any{"status": "x", "next_action": "y"}}, stick.CodeStaleLease)
	b.fails("wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": -1}, stick.CodeInvalidArgument)

	waited := b.wait(room, 20000)
	rel := a.ok("release_stick", released(turn, "Reviewed the parser."))
	if str(rel, "reserved_for") != idb {
		t.Fatalf("release: %v", rel)
	}
	w := within(t, waited, "the peer's your_turn")
	if str(w, "status") != "your_turn" || num(w, "turn_id") != 2 || str(obj(w, "handoff"), "status") != "Reviewed the parser." || str(w, "from_agent_id") != ida {
		t.Fatalf("the peer's wait: %v", w)
	}
	st := a.ok("get_room_state", map[string]any{"room_id": room})
	for _, m := range list(st, "members") {
		if s := str(m.(map[string]any), "status"); s != "active" {
			t.Fatalf("a member behind a live proxy is %s: %v", s, st)
		}
	}
	b.ok("release_stick", released(w, "Done."))
}

// 'stick mcp' refuses a token on its command line, saying why; and a
// token the hub does not know is the hub's refusal, at once.
func TestProxyTokenRefusals(t *testing.T) {
	t.Parallel()
	h, _ := teamHub(t)
	p := testproc.Start(t, "stick", "mcp", "--server", h.url, "--token", "secret")
	if code, _ := p.Wait(); code == 0 || !strings.Contains(p.Stderr(), "'ps'") || !strings.Contains(p.Stderr(), "--token-file") {
		t.Fatalf("--token: exit %d\n%s", code, p.Stderr())
	}
	bad := connect(t, h.url, "codex", []string{"STICK_TOKEN=not-a-token"})
	start := time.Now()
	bad.fails("list_rooms", map[string]any{}, stick.CodeUnauthenticated)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the refusal took %v", took)
	}
}

// twoHarnesses joins two harnesses behind proxies to a room of the hub,
// the first holding the stick, the second waiting for it; it sets the
// room's proxy grace.
func twoHarnesses(t *testing.T, h *hub, token string, grace time.Duration) (holder, peer *remote, turn map[string]any, waited <-chan map[string]any) {
	t.Helper()
	env := []string{"STICK_TOKEN=" + token}
	holder, peer = connect(t, h.url, "claude-code", env), connect(t, h.url, "codex", env)
	room := str(holder.ok("join_path", map[string]any{"name": "crashes"}), "room_id")
	peer.ok("join_path", map[string]any{"name": "crashes"})
	holder.ok("set_room_policy", map[string]any{"room_id": room, "proxy_grace_ms": grace.Milliseconds()})
	turn = holder.ok("wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 0})
	if str(turn, "status") != "your_turn" {
		t.Fatalf("the holder: %v", turn)
	}
	return holder, peer, turn, peer.wait(room, 60000)
}

// A harness behind a proxy is SIGKILLed while it holds the stick: its
// proxy tells the hub at once, and a waiter sees owner_gone long before
// the room's grace (five minutes here) could have made it.
func TestProxyHarnessKilled(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	holder, peer, turn, waited := twoHarnesses(t, h, token, 5*time.Minute)
	killed := time.Now()
	holder.killHarness()
	w := within(t, waited, "owner_gone after the harness died")
	if str(w, "status") != "takeover_available" || str(w, "reason") != "owner_gone" {
		t.Fatalf("after the harness died: %v", w)
	}
	t.Logf("owner_gone seen %v after SIGKILL of the harness", time.Since(killed))
	room := str(turn, "room_id")
	if st := peer.ok("get_room_state", map[string]any{"room_id": room}); str(st, "state") != "owner_gone" {
		t.Fatalf("state: %v", st)
	}
	holder.waitGone(holder.proxy, "a proxy whose harness exited")
	if tk := peer.ok("takeover_stick", map[string]any{"room_id": room, "expected_turn_id": 1, "reason": "the holder's harness died"}); num(tk, "turn_id") != 2 {
		t.Fatalf("takeover: %v", tk)
	}
}

// A harness that stops its proxy with SIGTERM and then exits, as a
// harness that shuts down may, is said gone at once all the same: the
// proxy waits a moment for its harness before it leaves.
func TestProxyStoppedThenHarnessExits(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	holder, _, _, waited := twoHarnesses(t, h, token, 5*time.Minute)
	if err := syscall.Kill(holder.proxy.PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the harness exits a moment after it stopped its server
	stopped := time.Now()
	holder.killHarness()
	w := within(t, waited, "owner_gone after the harness stopped its proxy and exited")
	if str(w, "status") != "takeover_available" || str(w, "reason") != "owner_gone" {
		t.Fatalf("after the harness stopped its proxy and exited: %v", w)
	}
	t.Logf("owner_gone seen %v after the harness exited", time.Since(stopped))
	holder.waitGone(holder.proxy, "a proxy stopped by SIGTERM")
}

// A proxy is SIGKILLed while its harness holds the stick: the hub sees its
// stream drop, and the member is gone once the room's grace has passed,
// not before.
func TestProxyKilled(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	grace := 700 * time.Millisecond
	holder, peer, turn, waited := twoHarnesses(t, h, token, grace)
	killed := time.Now()
	holder.killProxy()
	w := within(t, waited, "owner_gone after the grace")
	took := time.Since(killed)
	if str(w, "status") != "takeover_available" || str(w, "reason") != "owner_gone" || took < grace {
		t.Fatalf("after the proxy died (%v): %v", took, w)
	}
	t.Logf("owner_gone seen %v after SIGKILL of the proxy, grace %v", took, grace)
	if st := peer.ok("get_room_state", map[string]any{"room_id": str(turn, "room_id")}); str(st, "state") != "owner_gone" {
		t.Fatalf("state: %v", st)
	}
}

// The hub is SIGKILLed while a harness holds the stick and another waits,
// and started again on the same port and database: the proxies connect
// again by themselves, the holder keeps its lease (its heartbeat and its
// release are taken), the waiter's wait goes on, and no turn is granted
// twice.
func TestProxyHubRestart(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	holder, peer, turn, waited := twoHarnesses(t, h, token, 10*time.Second)
	room := str(turn, "room_id")
	if err := h.proc.Kill(); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(h.url, "http://")
	h2 := startHub(t, h.data, nil, "--addr", addr)
	if h2.url != h.url {
		t.Fatalf("the hub came back at %s, not %s", h2.url, h.url)
	}
	if hb, text, isErr := holder.call("heartbeat", lease(turn)); isErr || num(hb, "turn_id") != 1 {
		t.Fatalf("the holder's heartbeat after the restart: %s", text)
	}
	select {
	case w := <-waited:
		t.Fatalf("the waiter got an answer while the stick is held: %v", w)
	default:
	}
	if st := holder.ok("get_room_state", map[string]any{"room_id": room}); str(st, "state") != "owned" || num(st, "turn_id") != 1 {
		t.Fatalf("after the restart: %v", st)
	}
	holder.ok("release_stick", released(turn, "Survived a restart."))
	w := within(t, waited, "the waiter's turn")
	if str(w, "status") != "your_turn" || num(w, "turn_id") != 2 || str(obj(w, "handoff"), "status") != "Survived a restart." {
		t.Fatalf("the waiter's wait across the restart: %v", w)
	}
	grants := 0
	for _, e := range list(peer.ok("get_room_events", map[string]any{"room_id": room}), "events") {
		switch str(e.(map[string]any), "event_type") {
		case "claim":
			grants++
		case "takeover":
			t.Fatalf("a takeover: %v", e)
		}
	}
	if grants != 2 {
		t.Fatalf("%d turns granted, want 2", grants)
	}
	for _, r := range []*remote{holder, peer} {
		r.said("connected to the hub", 2)
	}
}

// cutter forwards TCP connections to a hub and loses the first answer to
// a request whose bytes hold marker, as a network that fails once the hub
// has done the work: it lets the request through, holds the answer back
// until the tool's result is in it, and then closes the connection
// instead of passing the answer on.
type cutter struct {
	t      *testing.T
	ln     net.Listener
	target string
	marker []byte
	mu     sync.Mutex
	// cut counts the answers lost; once one is, connections pass all.
	cut int
}

func newCutter(t *testing.T, target string, marker string) *cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{t: t, ln: ln, target: strings.TrimPrefix(target, "http://"), marker: []byte(marker)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go c.serve(conn)
		}
	}()
	return c
}

func (c *cutter) url() string { return "http://" + c.ln.Addr().String() }

func (c *cutter) cuts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut
}

func (c *cutter) serve(client net.Conn) {
	defer client.Close()
	hub, err := net.Dial("tcp", c.target)
	if err != nil {
		return
	}
	defer hub.Close()
	var armed atomic.Bool
	go func() {
		var window []byte
		buf := make([]byte, 32<<10)
		for {
			n, err := client.Read(buf)
			if n > 0 {
				window = append(window, buf[:n]...)
				if len(window) > 64<<10 {
					window = window[len(window)-(64<<10):]
				}
				c.mu.Lock()
				if c.cut == 0 && bytes.Contains(window, c.marker) {
					armed.Store(true)
				}
				c.mu.Unlock()
				if _, err := hub.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				hub.Close()
				return
			}
		}
	}()
	var held []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := hub.Read(buf)
		if n > 0 {
			if !armed.Load() {
				if _, err := client.Write(buf[:n]); err != nil {
					return
				}
			} else if held = append(held, buf[:n]...); bytes.Contains(held, []byte(`"result"`)) {
				c.mu.Lock()
				c.cut++
				c.mu.Unlock()
				return // the answer is lost: both connections close
			}
		}
		if err != nil {
			return
		}
	}
}

// A release whose answer is lost on the way back is sent again, with its
// Idempotency-Key (by the proxy, or by Go's HTTP client, which resends a
// request with that header when a reused connection dies before any
// answer): the hub answers it with the first result instead of
// turn_mismatch, the turn ends once, and the next member's turn is
// granted once.
func TestProxyRetriedWriteChangesNothing(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	cut := newCutter(t, h.url, `"release_stick"`)
	env := []string{"STICK_TOKEN=" + token}
	a, b := connect(t, cut.url(), "claude-code", env), connect(t, h.url, "codex", env)
	room := str(a.ok("join_path", map[string]any{"name": "lossy"}), "room_id")
	idb := str(b.ok("join_path", map[string]any{"name": "lossy"}), "agent_id")
	turn := a.ok("wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 0})
	waited := b.wait(room, 60000)
	rel := a.ok("release_stick", released(turn, "Sent twice, done once."))
	if cut.cuts() != 1 || str(rel, "reserved_for") != idb {
		t.Fatalf("the release (%d answers lost): %v", cut.cuts(), rel)
	}
	w := within(t, waited, "the next member's turn")
	if str(w, "status") != "your_turn" || num(w, "turn_id") != 2 {
		t.Fatalf("the next turn: %v", w)
	}
	counts := map[string]int{}
	for _, e := range list(b.ok("get_room_events", map[string]any{"room_id": room}), "events") {
		counts[str(e.(map[string]any), "event_type")]++
	}
	if counts["release"] != 1 || counts["claim"] != 2 {
		t.Fatalf("events: %v", counts)
	}
	a.fails("release_stick", released(turn, "Sent twice, done once."), stick.CodeTurnMismatch)
}

// The hub keeps a proxied holder's lease alive between its calls, as a
// local 'stick mcp' keeps its harness's: with a lease of 400 ms, a holder
// that makes no call is still the holder after several leases' time.
func TestProxyKeepsTheLease(t *testing.T) {
	t.Parallel()
	h, token := teamHub(t)
	env := []string{"STICK_TOKEN=" + token}
	holder, peer := connect(t, h.url, "claude-code", env), connect(t, h.url, "codex", env)
	room := str(holder.ok("join_path", map[string]any{"name": "long-turn"}), "room_id")
	peer.ok("join_path", map[string]any{"name": "long-turn"})
	holder.ok("set_room_policy", map[string]any{"room_id": room, "owner_lease_ttl_ms": 400, "heartbeat_interval_ms": 100})
	turn := holder.ok("wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 0})
	granted, err := time.Parse(time.RFC3339Nano, str(turn, "lease_expires_at"))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st := peer.ok("get_room_state", map[string]any{"room_id": room})
		if str(st, "state") != "owned" {
			t.Fatalf("the holder lost the stick: %v", st)
		}
		if until, _ := time.Parse(time.RFC3339Nano, str(st, "lease_expires_at")); until.Sub(granted) >= 1200*time.Millisecond {
			break // renewed for three leases' time
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lease was not kept: %v", st)
		}
	}
	holder.ok("release_stick", released(turn, "A long step, done."))
}
