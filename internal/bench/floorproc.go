package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
)

func init() {
	reexec.Register("bench-echo", roleMain("bench-echo", echo))
	reexec.Register("bench-mcp-empty", roleMain("bench-mcp-empty", mcpEmpty))
}

// echo writes every line it reads back at once, until its input ends.
func echo([]string) error {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if _, werr := os.Stdout.Write(line); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// pipeRoundTrip times a short line sent to an echoing child over its
// stdin and read back from its stdout: the floor of a handoff between
// two processes. It reads the pipe itself rather than through childproc's
// line channel, whose goroutine would add a hand-over to every trip.
func pipeRoundTrip(ctx context.Context, e *env) ([]FloorResult, error) {
	cmd, err := reexec.Command(ctx, "bench-echo")
	if err != nil {
		return nil, err
	}
	childproc.DieWithParent(cmd)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	rp, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = w.Close(); _ = cmd.Wait() }()
	r := bufio.NewReader(rp)
	msg := []byte("turn 12345 is yours\n")
	trip := func() (time.Duration, error) {
		t0 := time.Now()
		if _, err := w.Write(msg); err != nil {
			return 0, err
		}
		if _, err := r.ReadBytes('\n'); err != nil {
			return 0, fmt.Errorf("read the echo: %w", err)
		}
		return time.Since(t0), nil
	}
	return timeTrips(FloorResult{Floor: "pipe", Unit: "round trips"}, 100, e.fixed(5000, 500), cmd.Process.Pid, trip)
}

// mcpEmpty serves one tool that does nothing, over stdio with the MCP Go
// SDK, until its input ends.
func mcpEmpty([]string) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "empty", Description: "does nothing", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
		})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// mcpStdio times tools/call of an empty tool from an MCP SDK client to an
// MCP SDK server in a child over stdio: the floor of one MCP call.
func mcpStdio(ctx context.Context, e *env) ([]FloorResult, error) {
	cmd, err := reexec.Command(ctx, "bench-mcp-empty")
	if err != nil {
		return nil, err
	}
	childproc.DieWithParent(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("start the empty MCP server: %w (%s)", err, strings.TrimSpace(stderr.String()))
	}
	defer cs.Close()
	call := func() (time.Duration, error) {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "empty", Arguments: map[string]any{}})
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("the empty tool failed: %v", res.Content)
		}
		return time.Since(t0), nil
	}
	return timeTrips(FloorResult{Floor: "mcp-stdio", Unit: "calls"}, 20, e.fixed(2000, 200), cmd.Process.Pid, call)
}

// timeTrips makes warm untimed trips, then times n more, metering this
// process and the child pid, and returns f with their figures.
func timeTrips(f FloorResult, warm, n, pid int, trip func() (time.Duration, error)) ([]FloorResult, error) {
	for range warm {
		if _, err := trip(); err != nil {
			return nil, err
		}
	}
	samples := make([]time.Duration, 0, n)
	m := startMeter(pid)
	for range n {
		d, err := trip()
		if err != nil {
			return nil, err
		}
		samples = append(samples, d)
	}
	f.fromMeter(m, n)
	f.fromSamples(samples)
	return []FloorResult{f}, nil
}

// bareStart builds a Go program whose main does nothing and times its
// runs from spawn to exit: the floor of starting any Go program here. It
// needs the go command, on PATH or under $GOROOT/bin.
func bareStart(ctx context.Context, e *env) ([]FloorResult, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if root := os.Getenv("GOROOT"); root != "" {
			goTool, err = exec.LookPath(filepath.Join(root, "bin", "go"))
		}
	}
	if err != nil {
		return unavailable("bare-start", "no go command on PATH or under $GOROOT/bin to build a bare program"), nil
	}
	dir := filepath.Join(filepath.Dir(e.data), "bare")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for name, text := range map[string]string{"go.mod": "module bare\n\ngo 1.21\n", "main.go": "package main\n\nfunc main() {}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return nil, err
		}
	}
	bin := filepath.Join(dir, "bare")
	build := exec.CommandContext(ctx, goTool, "build", "-o", bin, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		return unavailable("bare-start", "go build of a bare program failed: %v: %s", err, strings.TrimSpace(string(out))), nil
	}
	f, err := timeStarts(ctx, e, "bare-start", func() (*exec.Cmd, error) { return exec.CommandContext(ctx, bin), nil })
	if err != nil {
		return nil, fmt.Errorf("run the bare program: %w", err)
	}
	f.Notes = []string{"built with " + goTool}
	return []FloorResult{f}, nil
}

func init() {
	reexec.Register("bench-exit", func([]string) int { return 0 })
}

// linkedStart times this program started in a role that exits at once:
// the Go runtime, the loading of a binary of stick's size and the
// initialisation of every package it links, stick's dependencies among
// them, with nothing of stick's own start. Beside bare-start it shows what
// the dependencies cost before stick's code runs at all.
func linkedStart(ctx context.Context, e *env) ([]FloorResult, error) {
	f, err := timeStarts(ctx, e, "linked-start", func() (*exec.Cmd, error) { return reexec.Command(ctx, "bench-exit") })
	if err != nil {
		return nil, fmt.Errorf("run this program doing nothing: %w", err)
	}
	return []FloorResult{f}, nil
}

// timeStarts runs the commands command makes, one after another, from
// spawn to exit (30 of them, 5 when quick), after one more that warms the
// page cache and is not counted, and returns the floor name's figures.
func timeStarts(ctx context.Context, e *env, name string, command func() (*exec.Cmd, error)) (FloorResult, error) {
	n := e.fixed(30, 5)
	samples := make([]time.Duration, 0, n)
	m := &meter{wall: time.Now(), childrenOnly: true}
	for i := -1; i < n; i++ {
		cmd, err := command()
		if err != nil {
			return FloorResult{}, err
		}
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			return FloorResult{}, err
		}
		if i >= 0 {
			samples = append(samples, time.Since(t0))
			m.addReaped(cmd.ProcessState)
		} else {
			m.wall = time.Now()
		}
	}
	f := FloorResult{Floor: name, Unit: "starts"}
	f.fromMeter(m, n)
	f.fromSamples(samples)
	return f, nil
}
