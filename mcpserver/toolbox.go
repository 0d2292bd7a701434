package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/replay"
	"github.com/stickhq/stick/stick"
)

// One registration of the tools, two transports: the stdio Server and the
// Streamable HTTP handler (HTTPHandler) register the same tools with the
// same schemas, results and error codes through a toolbox. What differs
// between them is a frontend: who a call acts as, the service it goes
// through, what joining means, and what happens after a call.

// call is one tool call as a tool's handler sees it.
type call struct {
	// svc is the service the call goes through.
	svc *stick.Service
	// caller is who the call acts as.
	caller stick.Caller
	// req is the request, for progress notifications.
	req *mcp.CallToolRequest
	// kept reports whether something keeps the caller's lease alive
	// between its calls (see keepers), which the texts say: a stdio
	// connection's harness, or over HTTP a proxy's liveness stream.
	kept bool
	// waiting, when set, marks the call as waiting in its room until the
	// function it returns is called, so that nothing wakes its session
	// meanwhile (see wakers).
	waiting func() func()
}

// wait marks cl waiting in its room (see call.waiting); call the
// function it returns when the wait ends.
func (cl call) wait() func() {
	if cl.waiting == nil {
		return func() {}
	}
	return cl.waiting()
}

// frontend is what a transport decides about each tool call.
type frontend interface {
	// bind names the caller of req and the service its call goes through;
	// room is the room_id the call's arguments name, "" for none.
	bind(ctx context.Context, req *mcp.CallToolRequest, room string) (call, error)
	// join runs join_path for cl.
	join(ctx context.Context, cl call, in joinPathIn) (stick.JoinResult, error)
	// listPath is the context_path list_rooms lists around when it is
	// given none: "" lists every room.
	listPath() string
	// after is told of every successful call and its output.
	after(cl call, out any)
}

// toolbox registers the tools of one MCP server.
type toolbox struct {
	mcp *mcp.Server
	fe  frontend
	// tools is the set offered.
	tools ToolSet
	// defaults is the policy rooms fall back to; the schemas show it.
	defaults stick.Policy
	// progressEvery is how often wait_for_turn reports progress.
	progressEvery time.Duration
	// ready, when set, is waited for before a call is served (Config.Ready).
	ready func(context.Context) error
	// errSchema is the schema of a failed call's "error", the same in every
	// tool's output schema: built once, never changed.
	errSchema func() (*jsonschema.Schema, error)
	// buildSchemas makes every tool's schemas built by schemaFor, none
	// taken from schemas_gen.go (TestSchemaCache).
	buildSchemas bool
	// replays, when set, keeps the results of writes that carried an
	// Idempotency-Key (see replayed): the HTTP handler's.
	replays *replay.Cache[replayKey]
	// keeper is where replays keeps a principal's results in the store:
	// the principal's Service.
	keeper func(stick.Principal) replay.Keeper
	// listed are the tools registered (tools register concurrently, so
	// listMu guards it).
	listMu sync.Mutex
	listed []*mcp.Tool
}

// newToolbox returns a toolbox for srv whose calls fe decides.
func newToolbox(srv *mcp.Server, fe frontend, tools ToolSet, defaults stick.Policy, progressEvery time.Duration) *toolbox {
	return &toolbox{mcp: srv, fe: fe, tools: tools, defaults: defaults, progressEvery: progressEvery,
		errSchema: sync.OnceValues(func() (*jsonschema.Schema, error) { return schemaFor[toolError](false, defaults) })}
}

// newMCP returns the SDK server every transport serves the tools with,
// telling a model the instructions given.
func newMCP(version, instructions string, initialized func(context.Context, *mcp.InitializedRequest)) *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "stick", Title: "stick: take turns in a shared workspace", Version: version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}, InitializedHandler: initialized})
}

// ToolList returns the tools a server offering tools lists, as 'stick mcp'
// lists them: names, titles, descriptions, annotations and schemas (of
// the default policy), by name as the SDK lists them. A proxy ('stick mcp --server') lists
// them and forwards their calls. It fails with invalid_argument for an
// unknown tool set.
func ToolList(tools ToolSet) ([]*mcp.Tool, error) {
	set, err := ParseToolSet(string(tools))
	if err != nil {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "%v", err).With("field", "tools")
	}
	b := newToolbox(newMCP("", "", nil), nil, set, stick.DefaultPolicy, time.Second)
	if err := b.register(); err != nil {
		return nil, err
	}
	slices.SortFunc(b.listed, func(x, y *mcp.Tool) int { return strings.Compare(x.Name, y.Name) })
	return b.listed, nil
}

// roomIndex returns the index sequence (for reflect.Value.FieldByIndex) of
// the string field of struct type t that the JSON key "room_id" decodes
// into, looking into embedded structs as encoding/json does (a field of t
// itself first), or nil when t has none. It is how addTool finds the room a
// tool call names, for every input type alike.
func roomIndex(t reflect.Type) []int {
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "room_id" && f.IsExported() && f.Type.Kind() == reflect.String {
			return []int{i}
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if sub := roomIndex(f.Type); sub != nil {
				return append([]int{i}, sub...)
			}
		}
	}
	return nil
}

// addTool registers a tool whose input decoding, errors and output stick
// controls: arguments are decoded strictly (an unknown or mistyped field is
// invalid_argument naming it), a handler error becomes a tool result with
// isError and {"error": {code, message, hint, details}} as structured
// content, and a success carries Out as structured content and text for
// text-only clients. The handler's caller and service are the ones the
// frontend binds for the room the arguments name (their room_id field, see
// roomIndex), "" for a tool whose input has no room_id. A tool outside the
// tool set is not registered. A successful read-only call in a room tells
// the service the caller read it (stick.Service.Attend: a holder's read
// counts as a heartbeat; a read that renewed the lease is read again to
// show it), and the frontend is told of every successful call (a stdio
// server starts or stops keeping a lease, see keepers).
func addTool[In, Out any](b *toolbox, t *mcp.Tool, h func(context.Context, call, In) (Out, string, error)) error {
	if !b.tools.offers(t.Name) {
		return nil
	}
	if c, ok := cachedSchemas(t.Name, b.defaults); ok && !b.buildSchemas {
		t.InputSchema, t.OutputSchema = c.Input, c.Output
	} else {
		in, err := schemaFor[In](true, b.defaults)
		if err != nil {
			return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		out, err := schemaFor[Out](false, b.defaults)
		if err != nil {
			return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
		}
		errSchema, err := b.errSchema()
		if err != nil {
			return fmt.Errorf("mcpserver: error schema: %w", err)
		}
		out.Properties["error"] = errSchema
		t.InputSchema, t.OutputSchema = in, out
	}
	b.listMu.Lock()
	b.listed = append(b.listed, t)
	b.listMu.Unlock()
	roomAt := roomIndex(reflect.TypeFor[In]())
	readOnly := t.Annotations != nil && t.Annotations.ReadOnlyHint
	serve := func(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
		if b.ready != nil {
			if err := b.ready(ctx); err != nil {
				return errorResult(err)
			}
		}
		var v In
		if err := decode(req.Params.Arguments, &v); err != nil {
			return errorResult(err)
		}
		var room string
		if roomAt != nil {
			room = reflect.ValueOf(&v).Elem().FieldByIndex(roomAt).String()
		}
		cl, err := b.fe.bind(ctx, req, room)
		if err != nil {
			return errorResult(err)
		}
		o, text, err := h(ctx, cl, v)
		if err == nil && readOnly && room != "" && cl.svc.Attend(ctx, cl.caller, room) {
			o, text, err = h(ctx, cl, v) // read again: the holder's lease was renewed
		}
		if err != nil {
			return errorResult(err)
		}
		b.fe.after(cl, o)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: o}
	}
	b.mcp.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if b.replays != nil && !readOnly {
			return b.replayed(ctx, req, serve), nil
		}
		return serve(ctx, req), nil
	})
	return nil
}

// replayKey is whose Idempotency-Key a tool call carries: the
// credential's, the client's and the session's (a member's own).
type replayKey struct {
	token, client, session, key string
}

// Bounds of the results kept for retries (HTTPHandler).
const (
	maxReplays = 4096
	replayTTL  = 24 * time.Hour
)

// replayed serves a call of a tool that writes through the replays: a
// call that carries an Idempotency-Key header (a proxy retrying a call
// whose result it lost) and repeats an earlier call with that key gets
// the first result again, and nothing is done twice; the same key with
// another tool or arguments is idempotency_key_reused. A result that says
// the call may not have been done (a busy store, a cancelled call) is not
// kept, so its retry runs again. Results are kept in memory and in the
// store (see package replay), before they are sent, so a call retried
// across a restart of the hub gets its first result too.
func (b *toolbox) replayed(ctx context.Context, req *mcp.CallToolRequest, serve func(context.Context, *mcp.CallToolRequest) *mcp.CallToolResult) *mcp.CallToolResult {
	key := header(req, "Idempotency-Key")
	p, ok := principalOf(req)
	if key == "" || !ok || b.replays == nil {
		return serve(ctx, req)
	}
	if err := replay.CheckKey(key); err != nil {
		return errorResult(err)
	}
	k := replayKey{token: p.TokenID, client: clientOf(req).Name, session: header(req, identity.SessionHeader), key: key}
	kp := b.keeper(p)
	if replay.Redelivered(req.Params.Name) {
		kp = nil // kept in memory only
	}
	e, first, err := b.replays.Begin(ctx, kp, k, "tools/call "+req.Params.Name, req.Params.Arguments)
	if err != nil {
		return errorResult(err)
	}
	if !first {
		return e.Value().(*mcp.CallToolResult)
	}
	res := serve(ctx, req)
	var code stick.Code
	if sc, ok := res.StructuredContent.(map[string]any); ok && res.IsError {
		if te, ok := sc["error"].(toolError); ok {
			code = te.Code
		}
	}
	// A result that could not be kept in the store is still kept in
	// memory, and still answered: the write was done.
	_ = b.replays.Finish(ctx, kp, e, res, replay.Kept(code))
	return res
}

// toolError is the structured form of a failed call.
type toolError struct {
	Code    stick.Code     `json:"code" jsonschema:"Stable error code, e.g. stale_lease, turn_mismatch, invalid_handoff."`
	Message string         `json:"message" jsonschema:"What went wrong."`
	Hint    string         `json:"hint,omitempty" jsonschema:"What to do next."`
	Details map[string]any `json:"details,omitempty" jsonschema:"Structured facts: current_owner, current_turn_id, room_state, field, ..."`
}

// ErrorResult is the result of a call that failed with err, as every
// tool of 'stick mcp' answers it: isError, {"error": {code, message,
// hint, details}} as structured content and the same as text. A proxy
// answers its own failures (the hub out of reach) so.
func ErrorResult(err error) *mcp.CallToolResult { return errorResult(err) }

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
