package mcpserver_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// A server whose store is still opening answers the client's handshake and
// tools/list at once; a tool call waits for the open and then runs as
// usual. (TestInitializedIsCalledOnceTheClientInitialized and cli's
// TestMCPUnusableDataDirIsEveryToolCallsError answer a raw initialize with
// no database open.)
func TestToolCallsWaitForReady(t *testing.T) {
	w := newWorld(t, self(t))
	opened := make(chan struct{})
	srv, err := mcpserver.New(mcpserver.Config{Service: w.svc, Harness: self(t), Version: "test",
		Ready: func(ctx context.Context) error {
			select {
			case <-opened:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	w.srv = srv
	cs := w.connect("claude-code", nil) // the handshake, while not ready
	if tools, err := cs.ListTools(context.Background(), nil); err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list while the store opens: %v %v", tools, err)
	}
	done := make(chan result, 1)
	go func() {
		r, err := callErr(cs, "list_rooms", obj{})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	select {
	case r := <-done:
		t.Fatalf("list_rooms answered before the store was open: %s", r.text)
	case <-time.After(50 * time.Millisecond):
	}
	close(opened)
	if r := <-done; r.raw.IsError {
		t.Fatalf("list_rooms once the store is open: %s", r.text)
	}
}

// A store that failed to open in the background answers every tool call
// with the open's own coded error, the one 'stick mcp' used to exit with.
func TestToolCallsMeetTheOpenError(t *testing.T) {
	dir := t.TempDir() + "/data"
	if err := os.WriteFile(dir, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, want := store.OpenDir(dir, store.Options{})
	bg := store.OpenInBackground(func() (*store.Store, error) { return store.OpenDir(dir, store.Options{}) })
	svc, err := stick.New(bg)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, ctx: context.Background(), svc: svc}
	if w.srv, err = mcpserver.New(mcpserver.Config{Service: svc, Harness: self(t), DataDir: dir, Version: "test", Ready: bg.Ready}); err != nil {
		t.Fatal(err)
	}
	cs := w.connect("claude-code", nil)
	for tool, args := range map[string]obj{"list_rooms": {}, "join_path": {"context_path": t.TempDir()}} {
		r := fails(t, cs, tool, args, stick.CodeDataDir)
		if m, _ := r.data["error"].(map[string]any); m["message"] != want.(*stick.Error).Message || m["hint"] != want.(*stick.Error).Hint {
			t.Errorf("%s: got %v, want the open's error %q (hint %q)", tool, m, want.(*stick.Error).Message, want.(*stick.Error).Hint)
		}
	}
}

// Config.Initialized is called once the client has initialized its
// session (notifications/initialized after the answer to initialize), the
// moment 'stick mcp' starts opening its database.
func TestInitializedIsCalledOnceTheClientInitialized(t *testing.T) {
	w := newWorld(t, self(t))
	called := make(chan struct{}, 2)
	srv, err := mcpserver.New(mcpserver.Config{Service: w.svc, Harness: self(t), Version: "test",
		Initialized: func() { called <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Run(ctx, &mcpserver.StdioTransport{In: inR, Out: outW}) }()
	t.Cleanup(func() { cancel(); inW.Close(); <-served })
	lines := bufio.NewReader(outR)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := lines.ReadString('\n'); err != nil || !strings.Contains(line, "protocolVersion") {
		t.Fatalf("initialize: %q %v", line, err)
	}
	if len(called) != 0 {
		t.Fatal("Initialized was called before the client initialized")
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-called:
	case <-time.After(10 * time.Second):
		t.Fatal("Initialized was not called after the client initialized")
	}
}

// StdioTransport.Answered is called once, after the first answer is
// written, whatever the answer is.
func TestAnsweredIsCalledOnceAfterTheFirstAnswer(t *testing.T) {
	w := newWorld(t, self(t))
	answered := make(chan struct{}, 3)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- w.srv.Run(ctx, &mcpserver.StdioTransport{In: inR, Out: outW, Answered: func() { answered <- struct{}{} }})
	}()
	t.Cleanup(func() { cancel(); inW.Close(); <-served })
	lines := bufio.NewReader(outR)
	// Writes take turns: once the third answer is read, the second
	// write has finished, Answered included had it been called.
	for i, msg := range []string{`not json`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`} {
		if i == 0 && len(answered) != 0 {
			t.Fatal("Answered was called before the first answer was written")
		}
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := lines.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			continue
		}
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			t.Fatal("Answered was not called after the first answer")
		}
	}
	if len(answered) != 0 {
		t.Fatal("Answered was called more than once")
	}
}
