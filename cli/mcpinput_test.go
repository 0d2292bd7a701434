package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"
)

// rawMCP is a `stick mcp` process spoken to in raw JSON-RPC lines, so a
// test can send bytes an SDK client would have cleaned up.
type rawMCP struct {
	t       *testing.T
	cmd     *exec.Cmd
	stderr  bytes.Buffer // read it once cmd has ended
	stdin   io.WriteCloser
	replies chan []byte
	id      int
}

func startRawMCP(t *testing.T, dir string, env ...string) *rawMCP {
	t.Helper()
	return startRawMCPWith(t, dir, nil, env...)
}

// startRawMCPWith is startRawMCP with flags after "stick mcp".
func startRawMCPWith(t *testing.T, dir string, flags []string, env ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command(stickBin, append([]string{"mcp"}, flags...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	m := &rawMCP{t: t, cmd: cmd, replies: make(chan []byte, 16)}
	cmd.Stderr = &m.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if m.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				m.replies <- line
			}
			if err != nil {
				close(m.replies)
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = m.stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	m.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m.reply(0)
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

func (m *rawMCP) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.stdin, line+"\n"); err != nil {
		m.t.Fatal(err)
	}
}

// reply returns the raw reply line to request id.
func (m *rawMCP) reply(id int) []byte {
	m.t.Helper()
	timer := time.NewTimer(safety)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-m.replies:
			if !ok {
				m.t.Fatalf("stick mcp ended before answering request %d", id)
			}
			var msg struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal(line, &msg) == nil && msg.ID != nil && *msg.ID == id {
				return line
			}
		case <-timer.C:
			m.t.Fatalf("no answer to request %d", id)
		}
	}
}

// rawResult is a tools/call result as the tests read it.
type rawResult struct {
	Result struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			RoomID string `json:"room_id"`
			Error  struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Details map[string]any `json:"details"`
			} `json:"error"`
			Events []struct {
				Text string `json:"text"`
			} `json:"events"`
		} `json:"structuredContent"`
	} `json:"result"`
}

// call sends a tools/call whose arguments are the raw JSON args, and
// returns the reply line and its decoded result.
func (m *rawMCP) call(tool, args string) ([]byte, rawResult) {
	m.t.Helper()
	m.id++
	m.send(`{"jsonrpc":"2.0","id":` + itoa(m.id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`)
	line := m.reply(m.id)
	var r rawResult
	if err := json.Unmarshal(line, &r); err != nil {
		m.t.Fatalf("reply to %s: %v\n%.300s", tool, err, line)
	}
	return line, r
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestMCPRefusesInvalidUTF8 sends raw bytes that are not UTF-8, and lone
// surrogate escapes, to a real `stick mcp`: each is invalid_argument
// naming the field, and nothing is stored.
func TestMCPRefusesInvalidUTF8(t *testing.T) {
	repo := testkit.Repo(t)
	m := startRawMCP(t, repo, "TALKING_STICK_DATA_DIR="+t.TempDir())
	_, r := m.call("join_path", `{"context_path":`+jsonString(repo)+`}`)
	room := r.Result.StructuredContent.RoomID
	if r.Result.IsError || room == "" {
		t.Fatalf("join: %+v", r)
	}
	for _, tc := range []struct{ name, args, field string }{
		{"raw byte", `{"room_id":"` + room + "\",\"text\":\"bad \xff byte\"}", "text"},
		{"truncated sequence", `{"room_id":"` + room + "\",\"text\":\"cut \xe2\x82\"}", "text"},
		{"lone high surrogate", `{"room_id":"` + room + `","text":"lone \ud800 half"}`, "text"},
		{"lone low surrogate", `{"room_id":"` + room + `","text":"lone \uDC00"}`, "text"},
		{"reversed pair", `{"room_id":"` + room + `","text":"\udc00\ud800"}`, "text"},
		{"in metadata", `{"room_id":"` + room + `","text":"ok","metadata":{"k":["x","\ud83d"]}}`, "metadata.k[1]"},
	} {
		line, r := m.call("append_note", tc.args)
		e := r.Result.StructuredContent.Error
		if !r.Result.IsError || e.Code != "invalid_argument" || e.Details["field"] != tc.field || !strings.Contains(e.Message, "UTF-8") {
			t.Errorf("%s: want invalid_argument on %s, got %.400s", tc.name, tc.field, line)
		}
	}
	// A valid pair and ordinary non-ASCII text still pass.
	if line, r := m.call("append_note", `{"room_id":"`+room+`","text":"smile \ud83d\ude00 und Grüße"}`); r.Result.IsError {
		t.Fatalf("valid text refused: %.400s", line)
	}
	_, r = m.call("get_room_events", `{"room_id":"`+room+`"}`)
	for _, ev := range r.Result.StructuredContent.Events {
		if strings.ContainsRune(ev.Text, '\uFFFD') {
			t.Errorf("stored a replaced text: %q", ev.Text)
		}
	}
}

// TestMCPRefusesHugeInputs sends a 4 MB context_path, room_id and key to a
// real `stick mcp` (far over every field's limit, under the transport's
// line limit): each is invalid_argument naming the field, in a short reply.
func TestMCPRefusesHugeInputs(t *testing.T) {
	repo := testkit.Repo(t)
	m := startRawMCP(t, repo, "TALKING_STICK_DATA_DIR="+t.TempDir())
	huge := strings.Repeat("a", 4<<20)
	for _, tc := range []struct{ tool, args, field string }{
		{"join_path", `{"context_path":"` + repo + "/" + huge + `"}`, "context_path"},
		{"get_room_state", `{"room_id":"` + huge + `"}`, "room_id"},
		{"append_note", `{"room_id":"` + huge + `","text":"hi"}`, "room_id"},
		{"search_events", `{"query":"x","room_id":"` + huge + `"}`, "room_id"},
		{"join_path", `{"context_path":"` + repo + `","` + huge + `":1}`, ""},
	} {
		line, r := m.call(tc.tool, tc.args)
		e := r.Result.StructuredContent.Error
		if !r.Result.IsError || e.Code != "invalid_argument" || (tc.field != "" && e.Details["field"] != tc.field) {
			t.Errorf("%s %.40s: want invalid_argument on %s, got %.400s", tc.tool, tc.args, tc.field, line)
		}
		if len(line) > 2000 {
			t.Errorf("%s %.40s: the reply is %d bytes", tc.tool, tc.args, len(line))
		}
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }
