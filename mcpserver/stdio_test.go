package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// FuzzStdioLine sends arbitrary text, between a handshake and a ping, to a
// server over StdioTransport, and checks what the transport promises for
// any input: every line it writes is one JSON-RPC 2.0 object, and the
// connection survives, so the ping sent after the text is answered. The
// seeds are the malformed messages that once ended 'stick mcp' (the
// over-long line is TestE2EMalformedMessagesAnswered's: too large a seed).
func FuzzStdioLine(f *testing.F) {
	for _, seed := range []string{
		"hello, stick",
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_rooms","arguments":{"limit":NaN}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_ro`,
		`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		`[]`,
		`null`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_rooms","arguments":{"a":` + nested(1000) + `}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","params":` + nested(20000) + `}`,
		`{"jsonrpc":"1.0","id":7,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 1000) + `","method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping","params":"` + strings.Repeat("p", 4<<10) + `"}`,
		`{"jsonrpc":"2.0","id":7,"method":null}`,
		`{"jsonrpc":"2.0","id":7}`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\r",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"} {\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n\n   \n{",
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
	} {
		f.Add([]byte(seed))
	}
	st, err := store.OpenDir(f.TempDir(), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	svc, err := stick.New(st)
	if err != nil {
		f.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Config{Service: svc, Harness: self(f), Version: "test"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ss, err := srv.MCP().Connect(ctx, &mcpserver.StdioTransport{In: inR, Out: outW}, nil)
		if err != nil {
			t.Fatal(err)
		}
		lines := make(chan []byte)
		go func() {
			sc := bufio.NewScanner(outR)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				lines <- append([]byte(nil), sc.Bytes()...)
			}
			close(lines)
		}()
		sent := make(chan error, 1)
		go func() {
			_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":"probe-init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+string(text)+"\n"+
				`{"jsonrpc":"2.0","id":"probe-after","method":"ping"}`+"\n")
			sent <- err
		}()
		for answered := false; !answered; {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatal("the connection ended before the ping after the text was answered")
				}
				var a map[string]any
				if err := json.Unmarshal(line, &a); err != nil || a["jsonrpc"] != "2.0" {
					t.Fatalf("not a JSON-RPC 2.0 object: %.200s", line)
				}
				if e, ok := a["error"].(map[string]any); ok {
					if msg, _ := e["message"].(string); len(msg) > 2<<10 {
						t.Fatalf("an error message of %d bytes: %.200s", len(msg), msg)
					}
				}
				answered = a["id"] == "probe-after" && a["result"] != nil
			case <-ctx.Done():
				t.Fatal("the ping after the text was not answered")
			}
		}
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		drained := make(chan struct{})
		go func() {
			for range lines {
			}
			close(drained)
		}()
		inW.Close()
		ss.Wait()
		outW.Close()
		<-drained
	})
}
