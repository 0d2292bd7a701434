package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// What a stdio connection keeps, and what each becomes over HTTP, where
// a member on another host reaches the hub with a credential:
//
//   - Its identity, claimed for the connection's life so that no other
//     live connection derives it: over HTTP, every call names its member
//     afresh from the credential the request authenticated as, the
//     client's name and, behind a proxy ('stick mcp --server'), the
//     session of its harness (identity.NameRequest, as the hub's JSON
//     API names its callers). Nothing is claimed, as nothing
//     lives between two requests; two clients of one credential are two
//     members, and two harnesses of one client with one credential are
//     one member, unless proxies name their sessions apart.
//   - The member each join established per room (after an
//     agent_id_override or a reclaim_token): over HTTP a call acts only as
//     the member its credential and client name, in every room (see
//     remote.join), so there is nothing to remember.
//   - The leases of the sticks it holds, kept alive while its harness
//     lives: over HTTP no process is in sight, so a remote member is
//     judged by its lease, as the protocol says for other hosts; its calls
//     in the room renew it (stick.Service.Attend and every write). Behind
//     a proxy, the proxy's liveness stream stands for the harness (see
//     package liveness): the hub keeps the leases the proxy names alive
//     while the stream is up, so the texts say what stdio's say.
//   - The records of the members its harness joined as, and the instance
//     claims on the host's data directory: over HTTP the member's name does
//     not change with its process, so a restarted harness is the same
//     member without them.
//
// No tool is left out over HTTP. Only list_rooms without a context_path
// differs: it lists every room the credential reaches, as the hub has no
// working directory of the caller's to list around.

// remote is the frontend of HTTPHandler. It keeps nothing per member or
// per MCP session.
type remote struct {
	// serviceFor is HTTPConfig.ServiceFor.
	serviceFor func(stick.Principal) *stick.Service
}

// principalExtra is the key of the principal in the auth.TokenInfo.Extra
// HTTPHandler gives each request (see HTTPHandler.ServeHTTP).
const principalExtra = "stick.principal"

// principalOf returns the principal the HTTP request that carried req
// authenticated as.
func principalOf(req *mcp.CallToolRequest) (stick.Principal, bool) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return stick.Principal{}, false
	}
	p, ok := req.Extra.TokenInfo.Extra[principalExtra].(stick.Principal)
	return p, ok
}

// noCredential is the refusal of a request that carries no principal.
func noCredential() *stick.Error {
	return stick.Errorf(stick.CodeUnauthenticated, "this request carries no credential").
		WithHint("send the hub's token in an Authorization: Bearer header")
}

// header returns the value of an HTTP header of the request that carried
// req, "" when it has none.
func header(req *mcp.CallToolRequest, name string) string {
	if req.Extra == nil || req.Extra.Header == nil {
		return ""
	}
	return req.Extra.Header.Get(name)
}

// bind implements frontend: a call acts as the member its principal,
// client and session name (identity.NameRequest: nothing is claimed, so
// the name never depends on the calls running beside it, and a restarted
// client is the same member at once), through the service the hub gives
// the principal; a proxied member's leases are kept by its proxy's
// stream. A call whose request carried no principal is refused with
// unauthenticated.
func (r *remote) bind(_ context.Context, req *mcp.CallToolRequest, _ string) (call, error) {
	p, ok := principalOf(req)
	if !ok {
		return call{}, noCredential()
	}
	caller, proxied, err := identity.NameRequest(p, clientOf(req), header(req, identity.SessionHeader))
	if err != nil {
		return call{}, err
	}
	svc := r.serviceFor(p)
	if svc == nil {
		return call{}, stick.Errorf(stick.CodeInternal, "the hub has no service for the credential %s", stick.Quote(p.Name))
	}
	return call{svc: svc, caller: caller, req: req, kept: proxied}, nil
}

// clientOf is the client req says it is.
func clientOf(req *mcp.CallToolRequest) identity.Client {
	if ci := req.ClientInfo(); ci != nil {
		return identity.Client{Name: ci.Name, Version: ci.Version}
	}
	return identity.Client{}
}

// join implements frontend. Over HTTP a call acts only as the member its
// credential and client name: no session carries another identity to the
// calls after a join. So an agent_id_override must be that member's own
// id, which changes nothing, and a reclaim_token that member's own token:
// the join passes the member's id as the override beside the token, and
// package stick refuses the token of any other member (invalid_argument on
// reclaim_token). Neither lets one credential act as a member of another,
// nor one client as another client of its own credential.
func (r *remote) join(ctx context.Context, cl call, in joinPathIn) (stick.JoinResult, error) {
	self := cl.caller.AgentID
	if in.AgentIDOverride != "" && in.AgentIDOverride != self {
		return stick.JoinResult{}, stick.Errorf(stick.CodeForbidden, "agent_id_override %s names another member: over HTTP you act as %s, the member your credential and client name",
			stick.Quote(in.AgentIDOverride), self).
			With("field", "agent_id_override").With("agent_id", self).
			WithHint("leave agent_id_override out; to act as another member, connect with its credential and client")
	}
	jr := stick.JoinRequest{Path: in.ContextPath, Name: in.Name, ForceNew: in.ForceNew, ReclaimToken: in.ReclaimToken}
	if jr.ReclaimToken != "" {
		jr.AgentIDOverride = self
	}
	res, err := cl.svc.JoinPath(ctx, cl.caller, jr)
	if e := stick.AsError(err); e != nil && jr.ReclaimToken != "" && e.Code == stick.CodeInvalidArgument && e.Details["field"] == "reclaim_token" {
		e.WithHint("over HTTP you are %s, the member your credential and client name, in every room: pass only a reclaim_token a join gave %s, or none", self, self)
	}
	return res, err
}

// listPath implements frontend: the hub cannot see the caller's working
// directory, so list_rooms without a context_path lists every room the
// credential reaches.
func (r *remote) listPath() string { return "" }

// after implements frontend: nothing follows a call over HTTP.
func (r *remote) after(call, any) {}
