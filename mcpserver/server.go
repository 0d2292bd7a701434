package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
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
	// overrides holds join_path.agent_id_override per connection.
	overrides sync.Map // *mcp.ServerSession -> string
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
// ends; then every wait in progress ends at once.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	defer s.cfg.Service.Shutdown()
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// caller derives the identity of the connection req arrived on.
func (s *Server) caller(req *mcp.CallToolRequest) stick.Caller {
	name, display := "mcp", ""
	if ci := req.ClientInfo(); ci != nil && ci.Name != "" {
		name, display = ci.Name, printable(strings.TrimSpace(ci.Name+" "+ci.Version), stick.MaxDisplayName)
	}
	c := stick.Caller{
		AgentID:     AgentID(name, s.cfg.Harness, harnessSession(s.cfg.Getenv)),
		Kind:        stick.KindHarness,
		Process:     s.cfg.Harness,
		DisplayName: display,
	}
	if o, ok := s.overrides.Load(req.Session); ok {
		c.AgentID = o.(string)
	}
	return c
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
		o, text, err := h(ctx, s.caller(req), req, v)
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

// decode reads tool arguments strictly into v.
func decode(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "arguments"
		}
		t := te.Type
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return stick.Errorf(stick.CodeInvalidArgument, "%s must be %s, got %s", field, jsonKind(t.Kind()), te.Value).
			With("field", field).WithHint("fix %s and call again; see the tool's input schema", field)
	case errors.As(err, &se):
		return stick.Errorf(stick.CodeInvalidArgument, "arguments are not valid JSON: %v", err).With("field", "arguments")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		e := stick.Errorf(stick.CodeInvalidArgument, "unknown field %q", field).With("field", field).
			WithHint("remove %s; see the tool's input schema for the fields it takes", field)
		if field == "agent_id" {
			e.WithHint("do not send agent_id: the server derives it from this connection (join_path returns it)")
		}
		return e
	}
	return stick.Errorf(stick.CodeInvalidArgument, "cannot read arguments: %v", err).With("field", "arguments")
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}
