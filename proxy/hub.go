package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// hubConn is the proxy's MCP client session with the hub's /mcp, made at
// the first call (the harness's client name goes into it) and made again
// after a call that broke it.
type hubConn struct {
	p  *Proxy
	mu sync.Mutex
	cs *mcp.ClientSession
}

// call makes one call of a tool on the hub.
func (h *hubConn) call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	cs, err := h.session(ctx)
	if err != nil {
		return nil, err
	}
	res, err := cs.CallTool(ctx, params)
	if err != nil && ctx.Err() == nil && !answered(err) {
		h.drop(cs) // the connection broke: the next call makes a new one
	}
	return res, err
}

// answered reports whether err is the hub's answer to a call (a JSON-RPC
// error it sent, such as an unknown tool), rather than a failure to reach
// it: the SDK reports those with codes of its own (an unknown error, a
// side closing, a request the transport could not send).
func answered(err error) bool {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return false
	}
	switch rpc.Code {
	case -32001, -32003, -32004, -32005:
		return false
	}
	return true
}

// session returns the client session, connecting it when there is none.
//
// It speaks the protocol version before the SDK's newest (sessionProtocol),
// in a session the hub keeps: the newest protocol keeps no state on the
// hub, which then makes a server session for every request, and a call
// costs about twice as much. The hub's session holds nothing but the
// client's name (identity comes from the token, the client and the
// X-Stick-Session header), so losing it loses nothing: a hub that
// restarted, or dropped an idle session, answers 404, the call fails as
// one that did not reach the hub, and the next call connects again.
func (h *hubConn) session(ctx context.Context) (*mcp.ClientSession, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cs != nil {
		return h.cs, nil
	}
	client, _ := h.p.names()
	c := mcp.NewClient(&mcp.Implementation{Name: client.Name, Version: client.Version},
		&mcp.ClientOptions{ProgressNotificationHandler: h.p.onProgress})
	tr := &mcp.StreamableClientTransport{Endpoint: h.p.base + "/mcp", HTTPClient: h.p.http, MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: sessionProtocol})
	if err != nil {
		return nil, err
	}
	h.cs = cs
	return cs, nil
}

// sessionProtocol is the MCP protocol version the proxy speaks to the
// hub: the newest one served in sessions.
const sessionProtocol = "2025-11-25"

// drop closes cs, which a call found broken, unless another call replaced
// it already.
func (h *hubConn) drop(cs *mcp.ClientSession) {
	h.mu.Lock()
	if h.cs == cs {
		h.cs = nil
	}
	h.mu.Unlock()
	_ = cs.Close()
}

// close closes the client session, if any.
func (h *hubConn) close() {
	h.mu.Lock()
	cs := h.cs
	h.cs = nil
	h.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}

// transport adds to every request of the proxy its credential, the
// harness's client and session, and a call's Idempotency-Key; and it
// notes the hub's refusal of the credential.
type transport struct {
	p    *Proxy
	base http.RoundTripper
}

// clientHeader is the hub's header for a client's name (server.ClientHeader).
const clientHeader = "X-Stick-Client"

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if t.p.cfg.Token != "" {
		r.Header.Set("Authorization", "Bearer "+t.p.cfg.Token)
	}
	client, session := t.p.names()
	if session != "" {
		r.Header.Set(identity.SessionHeader, session)
		r.Header.Set(clientHeader, client.Name)
	}
	if key, _ := r.Context().Value(keyKey{}).(string); key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		e, body := hubError(resp)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if e != nil {
			t.p.refused.set(e)
		}
	case resp.StatusCode/100 == 2:
		t.p.refused.set(nil)
	}
	return resp, nil
}

// hubError reads the coded error of a hub's error answer, and returns the
// body it read.
func hubError(resp *http.Response) (*stick.Error, []byte) {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	var b struct {
		Error struct {
			Code    stick.Code     `json:"code"`
			Message string         `json:"message"`
			Hint    string         `json:"hint"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &b) != nil || b.Error.Code == "" {
		return nil, body
	}
	e := stick.Errorf(b.Error.Code, "the hub refused: %s", b.Error.Message).WithHint("%s", b.Error.Hint)
	for k, v := range b.Error.Details {
		e = e.With(k, v)
	}
	return e, body
}

// refusal is the hub's refusal of the proxy's credential, nil while it
// accepts it.
type refusal struct {
	mu  sync.Mutex
	err *stick.Error
}

func (r *refusal) set(err *stick.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

func (r *refusal) get() *stick.Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}
