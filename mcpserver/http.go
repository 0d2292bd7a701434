package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/internal/replay"
	"github.com/stickhq/stick/stick"
)

// HTTPConfig wires an HTTPHandler.
type HTTPConfig struct {
	// Service is the hub's service; required. Its default policy describes
	// the tools (their schemas show it), and no call goes through it:
	// every call goes through ServiceFor.
	Service *stick.Service
	// ServiceFor returns the service a principal's calls go through (a hub
	// passes stick.Service.As, which enforces the credential's role and
	// rooms); required.
	ServiceFor func(stick.Principal) *stick.Service
	// Tools is the set of tools offered; default AllTools.
	Tools ToolSet
	// Version is reported to clients.
	Version string
	// ProgressEvery is how often wait_for_turn reports progress to a client
	// that asked for it (default 5 s).
	ProgressEvery time.Duration
	// SessionIdle closes an MCP session of the older protocol that has had
	// no request for this long (default DefaultSessionIdle). Such a session
	// holds only the client's name and version, so a closed one costs its
	// client one new initialize.
	SessionIdle time.Duration
	// DisableLocalhostProtection turns off the SDK's protection against
	// DNS rebinding, which refuses a request that arrives on a loopback
	// address with a Host header that is not one: only for a hub behind a
	// reverse proxy on its own host, which forwards requests for a public
	// name, and which checks Origin itself.
	DisableLocalhostProtection bool
	// Logger receives the SDK's log of the transport; nil logs nothing.
	Logger *slog.Logger
}

// DefaultSessionIdle is how long an idle MCP session of the older protocol
// lives by default (HTTPConfig.SessionIdle).
const DefaultSessionIdle = 24 * time.Hour

// statelessProtocol is the first MCP protocol revision that names the
// client in every request (its _meta) and has no sessions; the SDK serves
// it only without sessions.
const statelessProtocol = "2026-07-28"

// HTTPHandler serves the tools of 'stick mcp' over MCP's Streamable HTTP
// transport, with the official Go SDK's handler, to a hub's remote
// members: the same tools, schemas, results and error codes.
//
// Every request must carry the principal the hub authenticated it as
// (stick.WithPrincipal, put there by the hub's authentication in front of
// the handler); one without is refused with 401 and nothing else happens.
// Each tool call acts as the member that principal and the client's name
// make (see identity.NameRequest), and behind a proxy ('stick mcp --server') the
// session it names in identity.SessionHeader, through the service
// HTTPConfig.ServiceFor gives the principal. Nothing of a member lives in
// an MCP session. A call of a tool that writes with an Idempotency-Key
// header is done once: its retry gets the first result (see replayed).
//
// Clients of the SDK's newest protocol, which names the client in every
// request, are served without sessions. Older clients (the TypeScript SDK,
// the MCP Inspector) name themselves only in initialize, so they are
// served in a session that remembers that name and nothing else; the SDK
// binds it to the credential that opened it (a request of another
// credential on it is refused with 403), and it ends after
// HTTPConfig.SessionIdle without requests.
type HTTPHandler struct {
	box *toolbox
	// stateless serves the newest protocol, stateful the older ones.
	stateless, stateful http.Handler
}

// NewHTTP builds the handler and registers every tool.
func NewHTTP(cfg HTTPConfig) (*HTTPHandler, error) {
	switch {
	case cfg.Service == nil:
		return nil, errors.New("mcpserver: HTTPConfig.Service is required")
	case cfg.ServiceFor == nil:
		return nil, errors.New("mcpserver: HTTPConfig.ServiceFor is required")
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 5 * time.Second
	}
	if cfg.SessionIdle <= 0 {
		cfg.SessionIdle = DefaultSessionIdle
	}
	if cfg.Version == "" {
		cfg.Version = "(devel)"
	}
	tools, err := ParseToolSet(string(cfg.Tools))
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	box := newToolbox(newMCP(cfg.Version, RemoteInstructions(tools), nil), &remote{serviceFor: cfg.ServiceFor}, tools, cfg.Service.Defaults(), cfg.ProgressEvery)
	box.replays = replay.Persistent(time.Now, maxReplays, replayTTL, replay.Codec[replayKey]{
		Name: func(k replayKey) string {
			return "mcp\x00" + k.token + "\x00" + k.client + "\x00" + k.session + "\x00" + k.key
		},
		Encode: func(v any) ([]byte, error) { return json.Marshal(v.(*mcp.CallToolResult)) },
		Decode: func(b []byte) (any, error) {
			res := &mcp.CallToolResult{}
			err := json.Unmarshal(b, res)
			return res, err
		},
	})
	box.keeper = func(p stick.Principal) replay.Keeper { return cfg.ServiceFor(p) }
	if err := box.register(); err != nil {
		return nil, err
	}
	server := func(*http.Request) *mcp.Server { return box.mcp }
	// The credential reaches the tools as the SDK's token info: the SDK
	// hands it to each call (CallToolRequest.Extra), and binds a session
	// to the credential that opened it.
	credential := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p, ok := stick.PrincipalFrom(r.Context())
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: p.TokenID, Expiration: p.ExpiresAt, Extra: map[string]any{principalExtra: p}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	opts := mcp.StreamableHTTPOptions{Logger: cfg.Logger, DisableLocalhostProtection: cfg.DisableLocalhostProtection, MaxRequestBodyBytes: MaxMessageBytes}
	stateless, stateful := opts, opts
	stateless.Stateless, stateless.PropagateRequestCancellation = true, true
	stateful.SessionTimeout = cfg.SessionIdle
	return &HTTPHandler{
		box:       box,
		stateless: credential(mcp.NewStreamableHTTPHandler(server, &stateless)),
		stateful:  credential(mcp.NewStreamableHTTPHandler(server, &stateful)),
	}, nil
}

// credentialHeader is the Authorization header the SDK's handler sees in
// place of the one the request came with: the credential was checked in
// front of the handler, and its secret goes no further.
const credentialHeader = "Bearer checked-by-the-hub"

// ServeHTTP serves one request of the Streamable HTTP transport. A request
// without a principal in its context is answered 401 with the hub's error
// body, code unauthenticated.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, ok := stick.PrincipalFrom(r.Context()); !ok {
		w.Header().Set("WWW-Authenticate", "Bearer")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		e := noCredential()
		_ = json.NewEncoder(w).Encode(map[string]any{"error": toolError{Code: e.Code, Message: e.Message, Hint: e.Hint}})
		return
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", credentialHeader)
	if r.Header.Get("Mcp-Protocol-Version") >= statelessProtocol {
		h.stateless.ServeHTTP(w, r)
		return
	}
	h.stateful.ServeHTTP(w, r)
}

// MCP returns the underlying SDK server, for tests.
func (h *HTTPHandler) MCP() *mcp.Server { return h.box.mcp }

// Close ends every MCP session, and with it every stream the handler
// holds open, so a server shutting down is not held up by them. Calls
// in progress end too; the hub ends its long polls with
// stick.Service.Shutdown.
func (h *HTTPHandler) Close() {
	for ss := range h.box.mcp.Sessions() {
		_ = ss.Close()
	}
}
