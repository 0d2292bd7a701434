package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/stick"
)

// NamePrincipal names a caller of a hub that authenticated it as p (see
// stick.Service.Authenticate), using client, in session: what a hub calls
// for every request, since a request keeps no state between calls.
//
// The agent id is the client's slug and "@" and the principal's handle
// (stick.Principal.Handle): "claude-code@alex-s-team" for Claude Code with
// the token "Alex's Team". So one token serves a team's several agents,
// each client a member of its own, and no caller can be named into
// another token's members (stick.Principal.Owns) nor into those named on
// a host, whose ids have no "@". A session ("" for none), such as the
// session id of the harness behind a proxy, tells two agents of one
// client and one token apart: a short hash of it follows the slug,
// "claude-code:3f9a1c@alex-s-team". The session is the client's to
// choose, and it only ever picks among the token's own members. The
// display name is the token's name and the client's, "Alex's Team
// (claude-code 2.0)". The caller is of kind mcp_harness, with no process:
// it is judged by timeouts, or by the liveness the hub keeps for it.
//
// It fails with invalid_argument when p's name has no ASCII letter or
// digit to name a member by (no token made by stick has such a name).
func NamePrincipal(p stick.Principal, client Client, session string) (stick.Caller, error) {
	id, err := credentialID(p, client, session)
	if err != nil {
		return stick.Caller{}, err
	}
	return credentialCaller(p, client, id(1), 1), nil
}

// NameCredential is NamePrincipal for a frontend that holds a connection
// for each caller (a proxy's stream to the hub): the n-th live connection
// of one client with one token in one session is the n-th instance, with
// ".n" after the client's part of the id ("claude-code.2@alex-s-team")
// and " #n" after its display name, as NameConnection does for two
// servers of one harness. It fails as NamePrincipal does, and with
// data_dir_unusable when the claim cannot be taken.
func (c *Claims) NameCredential(p stick.Principal, client Client, session string) (*Connection, error) {
	id, err := credentialID(p, client, session)
	if err != nil {
		return nil, err
	}
	claim, err := c.claim(id)
	if err != nil {
		return nil, err
	}
	return &Connection{Harness: Slug(client.Name), Instance: claim.Instance, claim: claim,
		Caller: credentialCaller(p, client, claim.ID, claim.Instance)}, nil
}

// credentialID returns the agent id of the n-th instance of client with
// p's token in session (see NamePrincipal and NameCredential).
func credentialID(p stick.Principal, client Client, session string) (func(n int) string, error) {
	handle := p.Handle()
	if handle == "" {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "the token name %s has no ASCII letter or digit to name its members by", stick.Quote(p.Name)).
			WithHint("make a token whose name has letters or digits: 'stick token create NAME'")
	}
	local := Slug(client.Name)
	if session != "" {
		h := sha256.Sum256([]byte(session))
		local += ":" + hex.EncodeToString(h[:3])
	}
	return func(n int) string {
		if n > 1 {
			return local + "." + strconv.Itoa(n) + "@" + handle
		}
		return local + "@" + handle
	}, nil
}

// credentialCaller is the caller of the n-th instance of client with p's
// token, whose agent id is id.
func credentialCaller(p stick.Principal, client Client, id string, n int) stick.Caller {
	display := p.Name
	switch d := displayName(client, n); {
	case d != "":
		display += " (" + d + ")"
	case n > 1:
		display += " #" + strconv.Itoa(n)
	}
	return stick.Caller{AgentID: id, Kind: stick.KindHarness, DisplayName: printable.Keep(display, stick.MaxDisplayName)}
}
