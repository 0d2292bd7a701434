package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// Config wires a Server.
type Config struct {
	// Service is the protocol; required.
	Service *stick.Service
	// Harness is the process that spawned the server (its parent). Its facts
	// become the members' liveness facts, so a member is gone when its
	// harness dies, and it feeds the identity hash.
	Harness procid.Identity
	// Getenv reads the harness's environment (session ids); default os.Getenv.
	Getenv func(string) string
	// Version is reported in the initialize result.
	Version string
	// ProgressEvery is how often wait_for_turn reports progress to a client
	// that asked for it (default 5 s).
	ProgressEvery time.Duration
}

// Server is one MCP server; each client connection gets its own identity.
type Server struct {
	cfg Config
	mcp *mcp.Server
	// conns holds each connection's identity, fixed at its first call.
	conns sync.Map // *mcp.ServerSession -> *conn
}

// conn is one client connection's identity: derived once from the client's
// name at its first call, so later requests cannot change it, and replaced
// by join_path (an agent_id_override, or a reclaim_token that names a
// member) for the rest of the connection.
type conn struct {
	mu     sync.Mutex
	caller stick.Caller
	// agentID replaces caller.AgentID once a join replaced it; "" before.
	agentID string
	// override is true when agentID came from agent_id_override, so later
	// joins stay flagged as overridden; a reclaimed identity is not.
	override bool
	// tokens holds the reclaim token of the identity in force, by room_id,
	// from every join of this connection.
	tokens map[string]string
}

// New builds the server and registers every tool.
func New(cfg Config) (*Server, error) {
	if cfg.Service == nil {
		return nil, errors.New("mcpserver: Config.Service is required")
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 5 * time.Second
	}
	if cfg.Version == "" {
		cfg.Version = "(devel)"
	}
	s := &Server{cfg: cfg}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "stick", Title: "stick: take turns in a shared workspace", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: Instructions, Capabilities: &mcp.ServerCapabilities{}})
	if err := s.register(); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP returns the underlying SDK server, for transports and tests.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one connection over t until the client disconnects or ctx
// ends. When ctx ends (SIGTERM, SIGINT), every wait in progress returns at
// once, so the server does not linger for the rest of a long poll.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	stop := context.AfterFunc(ctx, s.cfg.Service.Shutdown)
	defer stop()
	defer s.cfg.Service.Shutdown()
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// conn returns the identity of the connection req arrived on, deriving it
// at the connection's first call.
func (s *Server) conn(req *mcp.CallToolRequest) *conn {
	if c, ok := s.conns.Load(req.Session); ok {
		return c.(*conn)
	}
	name, display := "mcp", ""
	if ci := req.ClientInfo(); ci != nil && ci.Name != "" {
		name, display = ci.Name, printable(strings.TrimSpace(ci.Name+" "+ci.Version), stick.MaxDisplayName)
	}
	c := &conn{caller: stick.Caller{
		AgentID:     AgentID(name, s.cfg.Harness, SessionID(s.cfg.Getenv)),
		Kind:        stick.KindHarness,
		Process:     s.cfg.Harness,
		DisplayName: display,
	}}
	actual, _ := s.conns.LoadOrStore(req.Session, c)
	return actual.(*conn)
}

// identity returns the caller to act as.
func (c *conn) identity() stick.Caller {
	c.mu.Lock()
	defer c.mu.Unlock()
	caller := c.caller
	if c.agentID != "" {
		caller.AgentID = c.agentID
	}
	return caller
}

// overridden returns the agent_id_override in force, "" if none.
func (c *conn) overridden() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.override {
		return c.agentID
	}
	return ""
}

// token returns the reclaim token the identity in force holds in room, "" if none.
func (c *conn) token(room string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokens[room]
}

// joined records a successful join: its agent id becomes the connection's
// identity when the join overrode or reclaimed it, and its reclaim token is
// kept for the room. Tokens of an identity the connection no longer has
// are dropped.
func (c *conn) joined(res stick.JoinResult, override bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	current := c.caller.AgentID
	if c.agentID != "" {
		current = c.agentID
	}
	if override || res.Reclaimed {
		c.agentID, c.override = res.AgentID, override
	}
	if res.AgentID != current || c.tokens == nil {
		c.tokens = map[string]string{}
	}
	if res.ReclaimToken != "" {
		c.tokens[res.RoomID] = res.ReclaimToken
	}
}

// addTool registers a tool whose input decoding, errors and output stick
// controls: arguments are decoded strictly (an unknown or mistyped field is
// invalid_argument naming it), a handler error becomes a tool result with
// isError and {"error": {code, message, hint, details}} as structured
// content, and a success carries Out as structured content and text for
// text-only clients.
func addTool[In, Out any](s *Server, t *mcp.Tool, h func(context.Context, stick.Caller, *mcp.CallToolRequest, In) (Out, string, error)) error {
	in, err := schemaFor[In](true)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	out, err := schemaFor[Out](false)
	if err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	errSchema, err := schemaFor[toolError](false)
	if err != nil {
		return err
	}
	errSchema.Description = "Set instead of the other fields when the call failed (isError is true)."
	out.Properties["error"] = errSchema
	t.InputSchema, t.OutputSchema = in, out
	s.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var v In
		if err := decode(req.Params.Arguments, &v); err != nil {
			return errorResult(err), nil
		}
		caller := s.conn(req).identity()
		o, text, err := h(ctx, caller, req, v)
		if err != nil {
			return errorResult(err), nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: o}, nil
	})
	return nil
}

// printable keeps the printable runes of s (valid UTF-8, no control
// characters), at most max bytes, so a client's odd name cannot make its
// calls fail.
func printable(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || b.Len()+utf8.RuneLen(r) > max {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// toolError is the structured form of a failed call.
type toolError struct {
	Code    stick.Code     `json:"code" jsonschema:"Stable error code, e.g. stale_lease, turn_mismatch, invalid_handoff."`
	Message string         `json:"message" jsonschema:"What went wrong."`
	Hint    string         `json:"hint,omitempty" jsonschema:"What to do next."`
	Details map[string]any `json:"details,omitempty" jsonschema:"Structured facts: current_owner, current_turn_id, room_state, field, ..."`
}

func errorResult(err error) *mcp.CallToolResult {
	e := stick.AsError(err)
	te := toolError{Code: e.Code, Message: e.Message, Hint: e.Hint, Details: e.Details}
	var b strings.Builder
	fmt.Fprintf(&b, "error %s: %s", e.Code, e.Message)
	if e.Hint != "" {
		fmt.Fprintf(&b, "\nhint: %s", e.Hint)
	}
	if len(e.Details) > 0 {
		d, _ := json.Marshal(e.Details)
		fmt.Fprintf(&b, "\ndetails: %s", d)
	}
	res := &mcp.CallToolResult{StructuredContent: map[string]any{"error": te}}
	res.Content = []mcp.Content{&mcp.TextContent{Text: b.String()}}
	res.SetError(e)
	return res
}
