package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// tsSDK is the official TypeScript SDK TestHTTPTypeScriptSDK installs from
// npm: a fixed version, so the test is the same on every run.
const tsSDK = "@modelcontextprotocol/sdk@1.32.2"

// installTS installs tsSDK into a temporary directory with npm and returns
// the directory, with testdata/tsclient/client.mjs copied into it. It
// skips the test, saying so loudly, without node or npm, or when the
// registry cannot be reached; any other failure fails it.
func installTS(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("SKIPPED: the TypeScript SDK test installs from npm; it does not run with -short")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIPPED: %s is not installed, so the official TypeScript SDK was NOT tested against the HTTP handler", tool)
		}
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, tsSDK)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		for _, unreachable := range []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "network"} {
			if strings.Contains(string(out), unreachable) || ctx.Err() != nil {
				t.Skipf("SKIPPED: the npm registry cannot be reached, so the official TypeScript SDK was NOT tested against the HTTP handler: %v\n%s", err, out)
			}
		}
		t.Fatalf("npm install %s: %v\n%s", tsSDK, err, out)
	}
	script, err := os.ReadFile(filepath.Join("testdata", "tsclient", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tsResult is a tool result as client.mjs prints it.
type tsResult struct {
	Error bool           `json:"error"`
	Data  map[string]any `json:"data"`
	Text  string         `json:"text"`
}

// The official TypeScript SDK (the client of the MCP Inspector and of
// most harnesses written in TypeScript), which speaks the older protocol
// in a session, takes a turn over HTTP: it lists every tool, joins a named
// room as its principal and client, gets your_turn, meets the error codes
// stdio gives, and its release hands the stick with its handoff to a Go
// client of another principal waiting in the newest protocol. The SDK
// checks every structured result against the tool's output schema.
func TestHTTPTypeScriptSDK(t *testing.T) {
	dir := installTS(t)
	hb := newHub(t)
	bob := hb.connect("secret-bob", "codex", "")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", hb.url, "secret-ana", "typescript-client", "ts-room")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// End the client, whatever it was doing when the test ended.
		cancel()
		_ = cmd.Wait()
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	next := func(v any) {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("client.mjs printed no more lines: %v", lines.Err())
		}
		if err := json.Unmarshal(lines.Bytes(), v); err != nil {
			t.Fatalf("client.mjs: %v: %s", err, lines.Bytes())
		}
	}

	var holding struct {
		Holding struct {
			Protocol, Session string
			Tools             []string
			Join, Wait        tsResult
		}
	}
	next(&holding)
	h := holding.Holding
	if h.Session == "" || h.Protocol >= "2026-07-28" {
		t.Errorf("the TypeScript SDK is served in a session of the older protocol: %q %q", h.Protocol, h.Session)
	}
	goTools, err := bob.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Tools) != len(goTools.Tools) {
		t.Errorf("the TypeScript SDK lists %d tools, the Go SDK %d", len(h.Tools), len(goTools.Tools))
	}
	room := h.Join.Data["room_id"]
	if h.Join.Error || h.Join.Data["agent_id"] != "typescript@ana-laptop" || h.Wait.Data["status"] != "your_turn" {
		t.Fatalf("join and wait: %+v %+v", h.Join, h.Wait)
	}

	ok(t, bob, "join_path", obj{"name": "ts-room"})
	waited := make(chan result, 1)
	go func() {
		r, err := callErr(bob, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 30000})
		if err != nil {
			t.Error(err)
		}
		waited <- r
	}()
	if _, err := stdin.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	var done struct {
		Done struct{ Mismatch, NotFound, Release, Handle, Me, Channels, Message, History, Unknown tsResult }
	}
	next(&done)
	d := done.Done
	for _, c := range []struct {
		r    tsResult
		code stick.Code
	}{{d.Mismatch, stick.CodeTurnMismatch}, {d.NotFound, stick.CodeRoomNotFound}} {
		e, _ := c.r.Data["error"].(map[string]any)
		if !c.r.Error || e["code"] != string(c.code) || !strings.Contains(c.r.Text, string(c.code)) {
			t.Errorf("want %s: %+v", c.code, c.r)
		}
	}
	if d.Release.Error || d.Release.Data["reserved_for"] != "codex@bob" {
		t.Fatalf("release: %+v", d.Release)
	}
	if d.Handle.Error || d.Me.Data["handle"] != "ts" || d.Me.Data["agent_id"] != "typescript@ana-laptop" {
		t.Errorf("handle: %+v %+v", d.Handle, d.Me)
	}
	if chs, _ := d.Channels.Data["channels"].([]any); d.Channels.Error || len(chs) != 4 {
		t.Errorf("channels: %+v", d.Channels)
	}
	ev, _ := d.Message.Data["event"].(map[string]any)
	if to, _ := ev["recipients"].([]any); d.Message.Error || len(to) != 1 || to[0] != "codex@bob" || ev["channel"] != "parallel-work" {
		t.Errorf("message: %+v", d.Message)
	}
	if evs, _ := d.History.Data["events"].([]any); d.History.Error || len(evs) != 1 {
		t.Errorf("history of parallel-work: %+v", d.History)
	}
	if e, _ := d.Unknown.Data["error"].(map[string]any); !d.Unknown.Error || e["code"] != string(stick.CodeInvalidArgument) || !strings.Contains(d.Unknown.Text, "codex@bob") {
		t.Errorf("a message to nobody: %+v", d.Unknown)
	}
	select {
	case r := <-waited:
		hand, _ := r.data["handoff"].(map[string]any)
		if r.str("status") != "your_turn" || r.str("from_agent_id") != "typescript@ana-laptop" || hand["status"] != "typed from TypeScript" {
			t.Fatalf("the Go client's turn: %v", r.data)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the Go client did not get the turn the TypeScript client released")
	}
}
