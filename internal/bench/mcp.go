package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
)

// stickCommand returns a command that runs 'stick args...' on the
// scenario's store (its data directory, and its database URL on
// PostgreSQL): the binary from Options.Stick, or this
// program in its "stick" role.
func (e *env) stickCommand(ctx context.Context, args ...string) (*exec.Cmd, error) {
	var cmd *exec.Cmd
	if e.o.Stick != "" {
		cmd = exec.CommandContext(ctx, e.o.Stick, args...)
		cmd.Env = os.Environ()
	} else {
		var err error
		if cmd, err = reexec.Command(ctx, "stick", args...); err != nil {
			return nil, err
		}
	}
	cmd.Env = append(cmd.Env, e.db.Env()...)
	return cmd, nil
}

// mcpSession is an MCP client connected to its own 'stick mcp'.
type mcpSession struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

// dial starts 'stick mcp' and connects to it as client name; each name
// gets its own agent id.
func (e *env) dial(ctx context.Context, name string) (*mcpSession, error) {
	cmd, err := e.stickCommand(ctx, "mcp")
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	s, err := connect(ctx, name, cmd)
	if err != nil {
		return nil, fmt.Errorf("start stick mcp as %s: %w (%s)", name, err, strings.TrimSpace(stderr.String()))
	}
	return s, nil
}

// connect starts cmd, an MCP server on its stdin and stdout that dies
// with this process, and connects to it as client name.
func connect(ctx context.Context, name string, cmd *exec.Cmd) (*mcpSession, error) {
	childproc.DieWithParent(cmd)
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		return nil, err
	}
	return &mcpSession{cs: cs, cmd: cmd}, nil
}

// toolResult is the part of a tool's structured result the scenarios read.
type toolResult struct {
	RoomID  string `json:"room_id"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	TurnID  int64  `json:"turn_id"`
	LeaseID string `json:"lease_id"`
	Handoff *struct {
		Status string `json:"status"`
	} `json:"handoff"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call calls a tool and decodes its structured result; a tool error is
// an error.
func (s *mcpSession) call(ctx context.Context, tool string, args map[string]any) (toolResult, error) {
	var out toolResult
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return out, fmt.Errorf("%s: %w", tool, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		if out.Error != nil {
			return out, fmt.Errorf("%s: %s: %s", tool, out.Error.Code, out.Error.Message)
		}
		return out, fmt.Errorf("%s failed: %s", tool, b)
	}
	return out, nil
}

func (s *mcpSession) close() { _ = s.cs.Close() }

// lease returns the fencing arguments of a your_turn result.
func (t toolResult) lease() map[string]any {
	return map[string]any{"room_id": t.RoomID, "lease_id": t.LeaseID, "expected_turn_id": t.TurnID}
}
