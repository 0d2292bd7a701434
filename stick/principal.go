package stick

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/workspace"
)

// AccessRole is what a credential may do on a hub. The roles are
// ordered: each may do everything the one before it may. Access lists
// which role each operation of the Service needs.
type AccessRole string

// The roles of a credential.
const (
	// AccessViewer reads: rooms, states, events, documents, search, export.
	AccessViewer AccessRole = "viewer"
	// AccessAgent also joins rooms and takes turns, follows a room's log
	// with Sync, posts notes and writes the document; it asks to close a
	// room that names a member responsible for its conclusion, and closes
	// it as that member (see Close).
	AccessAgent AccessRole = "agent"
	// AccessOperator also closes rooms outright, names the member
	// responsible for a room's conclusion, changes rooms' policy and
	// member order, prunes abandoned rooms and manages the hub's tokens.
	AccessOperator AccessRole = "operator"
)

// AccessRoles lists the roles, weakest first.
var AccessRoles = []AccessRole{AccessViewer, AccessAgent, AccessOperator}

// Valid reports whether r is one of AccessRoles.
func (r AccessRole) Valid() bool { return r.rank() > 0 }

// rank orders the roles: 0 for an unknown one.
func (r AccessRole) rank() int {
	switch r {
	case AccessViewer:
		return 1
	case AccessAgent:
		return 2
	case AccessOperator:
		return 3
	}
	return 0
}

// AtLeast reports whether r may do what min may. An unknown role may do
// nothing, and nothing needs an unknown role.
func (r AccessRole) AtLeast(min AccessRole) bool {
	return r.rank() >= min.rank() && r.rank() > 0 && min.rank() > 0
}

// Limits on a Scope.
const (
	// MaxScopeEntries bounds each list of a Scope.
	MaxScopeEntries = 64
	// MaxKeyPrefixLen bounds one key prefix.
	MaxKeyPrefixLen = workspace.MaxKeyLen
)

// Scope limits the rooms a credential reaches. The zero Scope reaches
// every room; otherwise a room is reached when its name is one of Names or
// its key begins with one of KeyPrefixes (github.com/acme/ reaches every
// repository of acme on GitHub, and every room nested in one). A named
// room has no key, so only Names reach it; a room of a path has no name,
// so only KeyPrefixes reach it. A credential limited to some rooms sees
// nothing of the others: they are missing from its lists and searches,
// reading them is room_not_found as for a room that does not exist, and
// joining them is forbidden.
type Scope struct {
	Names       []string `json:"names,omitempty"`
	KeyPrefixes []string `json:"key_prefixes,omitempty"`
}

// All reports whether s reaches every room.
func (s Scope) All() bool { return len(s.Names) == 0 && len(s.KeyPrefixes) == 0 }

// Reaches reports whether s reaches the room with the given name and key.
func (s Scope) Reaches(name, key string) bool {
	if s.All() {
		return true
	}
	if name != "" && slices.Contains(s.Names, name) {
		return true
	}
	for _, p := range s.KeyPrefixes {
		if key != "" && strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// Covers reports whether every room o reaches is one s reaches too: s
// reaches every room, or o is limited and each of its names is one of
// s's, and each of its key prefixes begins with one of s's. A credential
// limited to some rooms may only make credentials s covers.
func (s Scope) Covers(o Scope) bool {
	if s.All() {
		return true
	}
	if o.All() {
		return false
	}
	for _, n := range o.Names {
		if !slices.Contains(s.Names, n) {
			return false
		}
	}
	for _, p := range o.KeyPrefixes {
		if !slices.ContainsFunc(s.KeyPrefixes, func(q string) bool { return strings.HasPrefix(p, q) }) {
			return false
		}
	}
	return true
}

// String says in words which rooms s reaches.
func (s Scope) String() string {
	if s.All() {
		return "every room"
	}
	var parts []string
	if len(s.Names) > 0 {
		parts = append(parts, "the rooms named "+strings.Join(s.Names, ", "))
	}
	if len(s.KeyPrefixes) > 0 {
		parts = append(parts, "the rooms whose key begins with "+strings.Join(s.KeyPrefixes, " or "))
	}
	return strings.Join(parts, " and ")
}

// checked returns s with each entry once, or invalid_argument naming
// field (rooms.names, rooms.key_prefixes) when an entry is no room name or
// no key prefix: 1 to MaxKeyPrefixLen printable ASCII characters without
// spaces.
func (s Scope) checked(field string) (Scope, error) {
	if len(s.Names) > MaxScopeEntries || len(s.KeyPrefixes) > MaxScopeEntries {
		return Scope{}, invalidArg(field, "%s lists %d names and %d key prefixes; at most %d of each are allowed",
			field, len(s.Names), len(s.KeyPrefixes), MaxScopeEntries)
	}
	var out Scope
	for _, n := range s.Names {
		if err := checkRoomName(field+".names", n); err != nil {
			return Scope{}, err
		}
		if !slices.Contains(out.Names, n) {
			out.Names = append(out.Names, n)
		}
	}
	for _, p := range s.KeyPrefixes {
		if err := checkLen(field+".key_prefixes", p, MaxKeyPrefixLen); err != nil {
			return Scope{}, err
		}
		if p == "" || strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r > '~' }) {
			return Scope{}, invalidArg(field+".key_prefixes", "key prefix %s must be 1 to %d printable ASCII characters without spaces", Quote(p), MaxKeyPrefixLen).
				WithHint("give the beginning of room keys, for example github.com/acme/")
		}
		if !slices.Contains(out.KeyPrefixes, p) {
			out.KeyPrefixes = append(out.KeyPrefixes, p)
		}
	}
	return out, nil
}

// Principal is who a request to a hub acts for: the credential that
// authenticated it (Service.Authenticate). Its Name ("Alex's Team") and
// the client it uses (claude-code) make the members it joins as (see
// Owns); never a field of the request.
type Principal struct {
	// TokenID identifies the credential (not its secret).
	TokenID string `json:"token_id"`
	// Name is the credential's name, chosen by the operator who made it.
	Name string     `json:"name"`
	Role AccessRole `json:"role"`
	// Rooms limits the rooms the credential reaches.
	Rooms Scope `json:"rooms"`
	// ExpiresAt is when the credential stops working; zero for never.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// Handle is the principal's name as the agent ids of its members carry
// it: TokenHandle(p.Name), "alex-s-team" for "Alex's Team".
func (p Principal) Handle() string { return TokenHandle(p.Name) }

// Owns reports whether agentID names a member of this principal: it ends
// in "@" and the principal's Handle, with no other "@" before ("claude-
// code@alex-s-team", "codex:3f9a1c.2@alex-s-team"). A Service acting for
// the principal acts only as such members, so a caller can never be a
// member of another credential, nor one named on a host (those have no
// "@"). Package identity names them.
func (p Principal) Owns(agentID string) bool { return handleOwns(p.Handle(), agentID) }

// handleOwns reports whether agentID names a member of the principal
// whose handle is h (see Principal.Owns).
func handleOwns(h, agentID string) bool {
	local, ok := strings.CutSuffix(agentID, "@"+h)
	return ok && h != "" && local != "" && !strings.Contains(local, "@")
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p, the principal a hub authenticated
// for the request ctx belongs to.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx carries, if a hub put one there.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
