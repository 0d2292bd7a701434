package server

import (
	"context"
	"time"

	"github.com/stickhq/stick/stick"
)

// Waking an idle harness session behind a proxy ('stick mcp --server'):
// the proxy runs on the harness's host and holds the secrets of its
// transports (package wake), so it delivers; the hub claims, so that one
// wake goes per unread batch whatever the number of proxies and hubs.
// The proxy registers the names of its transports, asks for the next
// wake with a long poll while none of its harness's calls waits in the
// room, delivers it, and reports how that went. None of these is an MCP
// tool: they are the proxy's, called as the member its tool calls act as
// (ClientHeader and identity.SessionHeader).

// defaultWakeWait is how long an await waits for a wake by default.
const defaultWakeWait = 25 * time.Second

type wakeRegisterIn struct {
	Transports []string `json:"transports" jsonschema:"The names of the ways the session can be woken, in the order they are tried (claude-inbox, codex-queue; at most 4); none says it cannot be woken. Only names: a transport's secret never leaves the process that wakes."`
}

type wakeRegisterOut struct {
	RoomID     string   `json:"room_id"`
	AgentID    string   `json:"agent_id"`
	Transports []string `json:"transports"`
}

// registerWake records how the caller's harness session can be woken
// (stick.Service.RegisterWake).
func registerWake(c *call, in wakeRegisterIn) (wakeRegisterOut, error) {
	if err := c.svc.RegisterWake(c.ctx, c.caller, c.room, in.Transports); err != nil {
		return wakeRegisterOut{}, err
	}
	ts := in.Transports
	if ts == nil {
		ts = []string{}
	}
	return wakeRegisterOut{RoomID: c.room, AgentID: c.caller.AgentID, Transports: ts}, nil
}

type wakeAwaitIn struct {
	WaitMS *int64 `json:"wait_ms,omitempty" jsonschema:"Wait at most this long for a wake to be due (0 looks once, at most 600000); default 25000."`
}

type wakeAwaitOut struct {
	// Due is true when a wake was due and is now claimed: deliver it.
	Due bool `json:"due"`
	// Claim is the wake claimed, when Due.
	Claim *stick.WakeClaim `json:"claim,omitempty"`
}

// awaitWake waits up to wait_ms until a wake of the caller's session is
// due and claims it (stick.Service.AwaitWake): a long poll, which answers
// due false when the wait runs out, and when the hub stops. The caller
// asks only while nothing of its session waits in the room.
func awaitWake(c *call, in wakeAwaitIn) (wakeAwaitOut, error) {
	wait, err := waitMS(in.WaitMS, defaultWakeWait, "ask again after an answer of due false to wait longer")
	if err != nil {
		return wakeAwaitOut{}, err
	}
	if wait == 0 {
		claim, ok, err := c.svc.ClaimWake(c.ctx, c.caller, c.room)
		if err != nil || !ok {
			return wakeAwaitOut{}, err
		}
		return wakeAwaitOut{Due: true, Claim: &claim}, nil
	}
	end, err := c.longPoll()
	if err != nil {
		return wakeAwaitOut{}, err
	}
	defer end()
	ctx, cancel := context.WithTimeout(c.ctx, wait)
	defer cancel()
	claim, err := c.svc.AwaitWake(ctx, c.caller, c.room, func() bool { return true })
	switch {
	case err == nil:
		return wakeAwaitOut{Due: true, Claim: &claim}, nil
	case c.ctx.Err() == nil && (ctx.Err() != nil || stick.ErrorCode(err) == stick.CodeCanceled && c.s.isStopping()):
		return wakeAwaitOut{}, nil // the wait ran out, or the hub stops
	}
	return wakeAwaitOut{}, err
}

type wakeReportIn struct {
	Transport string `json:"transport" jsonschema:"The transport tried last (claude-inbox, codex-queue)."`
	State     string `json:"state" jsonschema:"What became of it: queued, ambiguous or failed."`
}

type wakeReportOut struct {
	RoomID    string `json:"room_id"`
	AgentID   string `json:"agent_id"`
	Transport string `json:"transport"`
	State     string `json:"state"`
}

// reportWake records how the caller's last wake went, shown in the room's
// state as the member's wake.last_state (stick.Service.ReportWake).
func reportWake(c *call, in wakeReportIn) (wakeReportOut, error) {
	if err := c.svc.ReportWake(c.ctx, c.caller, c.room, in.Transport, in.State); err != nil {
		return wakeReportOut{}, err
	}
	return wakeReportOut{RoomID: c.room, AgentID: c.caller.AgentID, Transport: in.Transport, State: in.State}, nil
}
