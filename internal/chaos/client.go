package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/stick"
)

// client is how an agent acts in the soak's room: through package stick
// over the shared database (libClient), or over MCP through a 'stick mcp
// --server' proxy of its own to a hub (hubClient). Its errors carry the
// protocol's codes (stick.ErrorCode), whichever way they came.
type client interface {
	join(ctx context.Context) (stick.JoinResult, error)
	wait(ctx context.Context, room string) (stick.WaitResult, error)
	takeover(ctx context.Context, room string, turn int64, reason string) (stick.TakeoverResult, error)
	heartbeat(ctx context.Context, l stick.Lease) (stick.HeartbeatResult, error)
	release(ctx context.Context, l stick.Lease, h stick.Handoff) (stick.ReleaseResult, error)
	pass(ctx context.Context, l stick.Lease, to string, h stick.Handoff) (stick.ReleaseResult, error)
	state(ctx context.Context, room string) (stick.RoomStatus, error)
	events(ctx context.Context, room string, after int64) (stick.EventPage, error)
}

// libClient acts through package stick as the member me, in the room of
// the path repo.
type libClient struct {
	svc  *stick.Service
	me   stick.Caller
	repo string
}

func (c *libClient) join(ctx context.Context) (stick.JoinResult, error) {
	return c.svc.JoinPath(ctx, c.me, stick.JoinRequest{Path: c.repo})
}

func (c *libClient) wait(ctx context.Context, room string) (stick.WaitResult, error) {
	return c.svc.WaitForTurn(ctx, c.me, stick.WaitRequest{RoomID: room})
}

func (c *libClient) takeover(ctx context.Context, room string, turn int64, reason string) (stick.TakeoverResult, error) {
	return c.svc.Takeover(ctx, c.me, room, turn, reason)
}

func (c *libClient) heartbeat(ctx context.Context, l stick.Lease) (stick.HeartbeatResult, error) {
	return c.svc.Heartbeat(ctx, c.me, l)
}

func (c *libClient) release(ctx context.Context, l stick.Lease, h stick.Handoff) (stick.ReleaseResult, error) {
	return c.svc.Release(ctx, c.me, l, h)
}

func (c *libClient) pass(ctx context.Context, l stick.Lease, to string, h stick.Handoff) (stick.ReleaseResult, error) {
	return c.svc.Pass(ctx, c.me, l, to, h)
}

func (c *libClient) state(ctx context.Context, room string) (stick.RoomStatus, error) {
	return c.svc.RoomState(ctx, room)
}

func (c *libClient) events(ctx context.Context, room string, after int64) (stick.EventPage, error) {
	return c.svc.RoomEvents(ctx, room, after, stick.MaxEventLimit)
}

// hubRoom is the name of the soak's room on a hub: a named room, which
// members on any host join by name.
const hubRoom = "chaos-soak"

// clientName is the MCP client name agents give: with the token and the
// proxy's session it names each agent a member of its own.
const clientName = "chaos"

// stickRole is the reexec role that runs the stick command line: the hub
// ('stick serve') and the agents' proxies ('stick mcp --server').
const stickRole = "chaos-stick"

// exitProxyGone is the exit code of an agent whose proxy vanished: like a
// harness whose tool server died, it can no longer reach the room, and it
// stops at once, writing nothing more, as a fenced client that lost its
// coordinator must.
const exitProxyGone = 3

// hubClient is an MCP client over the standard streams of the agent's own
// proxy process ('stick mcp --server URL'), which forwards every call to
// the hub. The agent is the proxy's harness: its parent process, whose
// exit the proxy reports to the hub.
type hubClient struct {
	cs    *mcp.ClientSession
	proxy *exec.Cmd
	// ended is closed when the session ended; closing says the agent
	// itself ended it; gone is called when the proxy vanished instead.
	ended   chan struct{}
	closing atomic.Bool
	gone    func()
}

// proxyTerminate is how long closing the client waits for the proxy to
// exit by itself before it is signalled: the proxy waits half a second
// for its harness's exit once its input ended.
const proxyTerminate = 3 * time.Second

// dialHub starts 'stick mcp --server url' with its claims in dir/data and
// its standard error in dir/<name>.log, and connects to it. The token
// comes from the agent's environment (STICK_TOKEN), never an argument.
// gone is called, from another goroutine, if the proxy's end of the
// session closes before close is called.
func dialHub(ctx context.Context, url, dir, name string, gone func()) (*hubClient, error) {
	cmd, err := reexec.Command(context.Background(), stickRole, "mcp", "--server", url)
	if err != nil {
		return nil, err
	}
	// The proxy is not made to die with the agent: like a harness's tool
	// server, it must see its harness exit and tell the hub.
	cmd.Env = append(cmd.Env, "TALKING_STICK_DATA_DIR="+filepath.Join(dir, "data"), rundb.NoDatabase())
	logf, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the proxy's log: %w", err)
	}
	defer logf.Close() // the proxy has its own copy
	cmd.Stderr = logf
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: proxyTerminate}, nil)
	if err != nil {
		return nil, fmt.Errorf("start the proxy: %w", err)
	}
	c := &hubClient{cs: cs, proxy: cmd, ended: make(chan struct{}), gone: gone}
	go func() {
		_ = cs.Wait()
		close(c.ended)
		if !c.closing.Load() {
			c.gone()
		}
	}()
	return c, nil
}

// proxyPID is the proxy's process id.
func (c *hubClient) proxyPID() int { return c.proxy.Process.Pid }

// close ends the session, which ends the proxy.
func (c *hubClient) close() {
	c.closing.Store(true)
	_ = c.cs.Close()
}

// call calls tool with args and decodes its structured result into out.
// A tool's error is returned as a *stick.Error with the hub's code. A
// call that fails otherwise, unless ctx ended, lost its proxy: gone is
// called, after the session's end, which it waits a moment for.
func (c *hubClient) call(ctx context.Context, tool string, args map[string]any, out any) error {
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		select {
		case <-c.ended:
			if !c.closing.Load() {
				c.gone()
			}
		case <-time.After(time.Second):
		}
		return fmt.Errorf("%s: %w", tool, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		var e struct {
			Error *struct {
				Code    stick.Code `json:"code"`
				Message string     `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error == nil || e.Error.Code == "" {
			return fmt.Errorf("%s failed without a code: %s", tool, b)
		}
		return stick.Errorf(e.Error.Code, "%s", e.Error.Message)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s: read the result %s: %w", tool, b, err)
	}
	return nil
}

// errNoResult is returned for a result that lacks what every result of
// its tool has.
var errNoResult = errors.New("the result lacks its room")

func (c *hubClient) join(ctx context.Context) (stick.JoinResult, error) {
	var out stick.JoinResult
	err := c.call(ctx, "join_path", map[string]any{"name": hubRoom}, &out)
	if err == nil && (out.RoomID == "" || out.AgentID == "") {
		err = fmt.Errorf("join_path: %w", errNoResult)
	}
	return out, err
}

func (c *hubClient) wait(ctx context.Context, room string) (stick.WaitResult, error) {
	var out stick.WaitResult
	err := c.call(ctx, "wait_for_turn", map[string]any{"room_id": room}, &out)
	return out, err
}

func (c *hubClient) takeover(ctx context.Context, room string, turn int64, reason string) (stick.TakeoverResult, error) {
	var out stick.TakeoverResult
	err := c.call(ctx, "takeover_stick", map[string]any{"room_id": room, "expected_turn_id": turn, "reason": reason}, &out)
	return out, err
}

// leaseArgs are the fencing arguments of an owner call.
func leaseArgs(l stick.Lease) map[string]any {
	return map[string]any{"room_id": l.RoomID, "lease_id": l.LeaseID, "expected_turn_id": l.TurnID}
}

func (c *hubClient) heartbeat(ctx context.Context, l stick.Lease) (stick.HeartbeatResult, error) {
	var out stick.HeartbeatResult
	err := c.call(ctx, "heartbeat", leaseArgs(l), &out)
	return out, err
}

func (c *hubClient) release(ctx context.Context, l stick.Lease, h stick.Handoff) (stick.ReleaseResult, error) {
	args := leaseArgs(l)
	args["handoff"] = h
	var out stick.ReleaseResult
	err := c.call(ctx, "release_stick", args, &out)
	return out, err
}

func (c *hubClient) pass(ctx context.Context, l stick.Lease, to string, h stick.Handoff) (stick.ReleaseResult, error) {
	args := leaseArgs(l)
	args["to_agent_id"], args["handoff"] = to, h
	var out stick.ReleaseResult
	err := c.call(ctx, "pass_stick", args, &out)
	return out, err
}

func (c *hubClient) state(ctx context.Context, room string) (stick.RoomStatus, error) {
	var out stick.RoomStatus
	err := c.call(ctx, "get_room_state", map[string]any{"room_id": room}, &out)
	return out, err
}

func (c *hubClient) events(ctx context.Context, room string, after int64) (stick.EventPage, error) {
	var out stick.EventPage
	err := c.call(ctx, "get_room_events", map[string]any{"room_id": room, "after": after, "limit": stick.MaxEventLimit}, &out)
	return out, err
}
