package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/mcpserver"
)

// rawMCP is a real 'stick mcp' process driven by raw lines over its pipes,
// as a client that sends malformed messages would drive it.
type rawMCP struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *bytes.Buffer
	exited  chan struct{}
	waitErr error

	mu      sync.Mutex
	cond    *sync.Cond
	answers []map[string]any
	nextID  int
}

func startRawMCP(t *testing.T, data string) *rawMCP {
	t.Helper()
	m := &rawMCP{t: t, stderr: &bytes.Buffer{}, exited: make(chan struct{}), nextID: 100}
	m.cond = sync.NewCond(&m.mu)
	m.cmd = exec.Command(stickBin, "mcp")
	m.cmd.Env = append(os.Environ(), "TALKING_STICK_DATA_DIR="+data)
	m.cmd.Stderr = m.stderr
	var err error
	if m.stdin, err = m.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := m.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var a map[string]any
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				a = map[string]any{"unreadable": sc.Text()}
			}
			m.mu.Lock()
			m.answers = append(m.answers, a)
			m.cond.Broadcast()
			m.mu.Unlock()
		}
		m.waitErr = m.cmd.Wait()
		close(m.exited)
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	}()
	t.Cleanup(func() {
		m.stdin.Close()
		select {
		case <-m.exited:
		case <-time.After(10 * time.Second):
			m.cmd.Process.Kill()
			<-m.exited
		}
	})
	return m
}

// send writes line and its newline.
func (m *rawMCP) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.stdin, line+"\n"); err != nil {
		m.t.Fatalf("writing to stick mcp: %v (stderr: %s)", err, m.stderr)
	}
}

// request sends a request and returns its id.
func (m *rawMCP) request(method string, params any) int {
	m.t.Helper()
	m.nextID++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.nextID, "method": method, "params": params})
	if err != nil {
		m.t.Fatal(err)
	}
	m.send(string(b))
	return m.nextID
}

// await returns (and removes) the first answer match accepts, failing the
// test if none comes within a while or the process exits.
func (m *rawMCP) await(what string, match func(map[string]any) bool) map[string]any {
	m.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	timer := time.AfterFunc(30*time.Second, func() { m.mu.Lock(); m.cond.Broadcast(); m.mu.Unlock() })
	defer timer.Stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		for i, a := range m.answers {
			if match(a) {
				m.answers = append(m.answers[:i], m.answers[i+1:]...)
				return a
			}
		}
		select {
		case <-m.exited:
			m.t.Fatalf("stick mcp exited (%v) before answering %s; stderr: %s", m.waitErr, what, m.stderr)
		default:
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("no answer for %s; answers so far: %v; stderr: %s", what, m.answers, m.stderr)
		}
		m.cond.Wait()
	}
}

// result awaits the answer to request id and returns its result.
func (m *rawMCP) result(id int) map[string]any {
	m.t.Helper()
	a := m.await(fmt.Sprintf("request %d", id), func(a map[string]any) bool { return a["id"] == float64(id) })
	r, ok := a["result"].(map[string]any)
	if !ok {
		m.t.Fatalf("request %d: want a result, got %v", id, a)
	}
	return r
}

// tool calls a tool and returns its structured content, failing on an error result.
func (m *rawMCP) tool(name string, args map[string]any) map[string]any {
	m.t.Helper()
	r := m.result(m.request("tools/call", map[string]any{"name": name, "arguments": args}))
	sc, _ := r["structuredContent"].(map[string]any)
	if r["isError"] == true || sc == nil {
		m.t.Fatalf("%s: %v", name, r)
	}
	return sc
}

func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// Each malformed message a client may send is answered with the JSON-RPC
// error it calls for (its id when it can be read, null otherwise), and the
// server goes on: the requests sent just before and just after it are
// answered, the member's stick stays held, and only the end of stdin ends
// the process, with status 0.
func TestE2EMalformedMessagesAnswered(t *testing.T) {
	data, repo := t.TempDir(), mkRepo(t)
	m := startRawMCP(t, data)
	m.result(m.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "claude-code", "version": "1.0"}}))
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	j := m.tool("join_path", map[string]any{"context_path": repo})
	room := j["room_id"]
	w := m.tool("wait_for_turn", map[string]any{"room_id": room})
	if w["status"] != "your_turn" {
		t.Fatalf("wait_for_turn: %v", w)
	}
	held := map[string]any{"room_id": room, "lease_id": w["lease_id"], "expected_turn_id": w["turn_id"]}

	const parse, invalid = -32700, -32600
	cases := []struct {
		name string
		line string
		code float64
		id   any // nil: the answer's id is null
	}{
		{"not JSON", "hello, stick", parse, nil},
		{"NaN", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_room_state","arguments":{"room_id":NaN}}}`, parse, nil},
		{"truncated line", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_ro`, parse, nil},
		{"bare array", `[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, invalid, nil},
		{"empty array", `[]`, invalid, nil},
		{"bare number", `42`, invalid, nil},
		{"nesting 1000 deep", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_room_state","arguments":{"room_id":` + nested(1000) + `}}}`, invalid, float64(7)},
		{"nesting 20000 deep", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_room_state","arguments":{"room_id":` + nested(20000) + `}}}`, invalid, nil},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, invalid, float64(7)},
		{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, invalid, nil},
		{"method a number", `{"jsonrpc":"2.0","id":7,"method":5}`, invalid, float64(7)},
		{"a parameter quoted in its error", `{"jsonrpc":"2.0","id":7,"method":"ping","params":"` + strings.Repeat("p", 1<<20) + `"}`, -32602, float64(7)},
		{"over-long line", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"` + strings.Repeat("x", mcpserver.MaxMessageBytes) + `"}}`, invalid, nil},
	}
	for _, c := range cases {
		before := m.request("tools/call", map[string]any{"name": "get_room_state", "arguments": map[string]any{"room_id": room}})
		m.send(c.line)
		after := m.request("tools/call", map[string]any{"name": "get_room_state", "arguments": map[string]any{"room_id": room}})
		for _, id := range []int{before, after} {
			r := m.result(id)
			sc, _ := r["structuredContent"].(map[string]any)
			if r["isError"] == true || sc["owner"] != w["agent_id"] {
				t.Fatalf("%s: get_room_state sent around it: want the stick held by %v, got %v", c.name, w["agent_id"], r)
			}
		}
		a := m.await(c.name+"'s error", func(a map[string]any) bool { _, isErr := a["error"]; return isErr })
		e, _ := a["error"].(map[string]any)
		if e["code"] != c.code || a["id"] != c.id || a["jsonrpc"] != "2.0" {
			t.Errorf("%s: want error %v with id %v, got %v", c.name, c.code, c.id, a)
		}
		if msg, _ := e["message"].(string); msg == "" || len(msg) > 2<<10 {
			t.Errorf("%s: want a short message saying what was wrong, got %d bytes", c.name, len(msg))
		}
	}
	m.tool("heartbeat", held)
	if r := m.tool("release_stick", map[string]any{"room_id": room, "lease_id": w["lease_id"], "expected_turn_id": w["turn_id"],
		"handoff": map[string]any{"status": "survived every malformed message", "next_action": "none"}}); r["turn_id"] != w["turn_id"] {
		t.Fatalf("release_stick: %v", r)
	}
	m.mu.Lock()
	left := m.answers
	m.mu.Unlock()
	if len(left) != 0 {
		t.Errorf("answers nobody asked for: %v", left)
	}
	select {
	case <-m.exited:
		t.Fatalf("stick mcp exited (%v); stderr: %s", m.waitErr, m.stderr)
	default:
	}
	m.stdin.Close()
	select {
	case <-m.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("stick mcp did not exit at the end of stdin")
	}
	if m.waitErr != nil || strings.Contains(m.stderr.String(), "usage") {
		t.Fatalf("at the end of stdin: exit %v, stderr: %s", m.waitErr, m.stderr)
	}
}

// A stdin that cannot be read is a failure of the connection, not of the
// command line: 'stick mcp' exits 1 saying what broke, with no usage hint.
func TestE2EUnreadableStdinIsNoUsageError(t *testing.T) {
	dir, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	cmd := exec.Command(stickBin, "mcp")
	cmd.Env = append(os.Environ(), "TALKING_STICK_DATA_DIR="+t.TempDir())
	cmd.Stdin = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || strings.Contains(stderr.String(), "usage") || !strings.Contains(stderr.String(), "stdin") {
		t.Fatalf("want exit 1 naming stdin and no usage hint, got %v: %s", err, stderr.String())
	}
}
