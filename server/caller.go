package server

import (
	"net/http"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/stick"
)

// ClientHeader names the header in which a plain HTTP client says what it
// is ("curl", "ci-runner"): with the credential's name it makes the
// member the request acts as, so two agents of one team, sharing one
// token, are two members when their clients are named apart. Behind a
// proxy ('stick mcp --server'), identity.SessionHeader names the
// harness's session besides, as it does on the proxy's MCP calls, so the
// proxy's requests to the JSON API act as the member its tool calls do.
// Neither is proof of anything: whoever holds the token may name any
// client and any session, and so act as any member of that token, never
// as a member of another token.
const ClientHeader = "X-Stick-Client"

// defaultClient is the client a request that names none is.
const defaultClient = "curl"

// maxClientLen bounds the client's name.
const maxClientLen = 64

// clientName is the client the request names (ClientHeader), else
// defaultClient.
func clientName(r *http.Request) string {
	if c := r.Header.Get(ClientHeader); c != "" {
		return c
	}
	return defaultClient
}

// checkClient refuses a client name that cannot name a member.
func checkClient(name string) error {
	if len(name) > maxClientLen || !printable.ASCII(name) {
		return stick.Errorf(stick.CodeInvalidArgument, "the %s header must be 1 to %d printable ASCII characters", ClientHeader, maxClientLen).
			With("field", ClientHeader).WithHint("name your client in a word, for example %s: ci-runner", ClientHeader)
	}
	return nil
}

// callerOf names the member a request of principal p through client, in
// the session its identity.SessionHeader names ("" for none), acts as,
// through package identity, as the hub's MCP endpoint names the callers
// of its tools (identity.NameRequest): the client's slug and the
// credential's handle ("curl@alexs-team"), with the session's hash after
// the slug behind a proxy. Nothing is claimed: HTTP requests hold no
// connection to claim a name for, so every request of one credential,
// client and session is one member. A malformed session is
// invalid_argument.
func (s *Server) callerOf(p stick.Principal, client, session string) (stick.Caller, error) {
	c, _, err := identity.NameRequest(p, identity.Client{Name: client}, session)
	return c, err
}
