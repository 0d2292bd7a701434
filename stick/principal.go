package stick

import (
	"context"
	"strings"
	"time"
)

// AccessRole is what a credential may do on a hub. The roles are
// ordered: each may do everything the one before it may.
type AccessRole string

// The roles of a credential.
const (
	// AccessViewer reads: rooms, states, events, documents, search, export.
	AccessViewer AccessRole = "viewer"
	// AccessAgent also joins rooms and takes turns, posts notes and writes
	// the document.
	AccessAgent AccessRole = "agent"
	// AccessOperator also closes rooms, changes their policy and member
	// order, removes members and manages the hub's settings and tokens.
	AccessOperator AccessRole = "operator"
)

// AccessRoles lists the roles, weakest first.
var AccessRoles = []AccessRole{AccessViewer, AccessAgent, AccessOperator}

// Valid reports whether r is one of AccessRoles.
func (r AccessRole) Valid() bool {
	switch r {
	case AccessViewer, AccessAgent, AccessOperator:
		return true
	}
	return false
}

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

// AtLeast reports whether r may do what min may.
func (r AccessRole) AtLeast(min AccessRole) bool { return r.rank() >= min.rank() && r.rank() > 0 }

// Scope limits the rooms a credential reaches. The zero Scope reaches
// every room; otherwise a room is reached when its name is one of Names or
// its key begins with one of KeyPrefixes (github.com/acme/ reaches every
// repository of acme on GitHub). A credential limited to some rooms sees
// nothing of the others: not in lists, searches or reads, and it cannot
// join them.
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
	for _, n := range s.Names {
		if name != "" && n == name {
			return true
		}
	}
	for _, p := range s.KeyPrefixes {
		if key != "" && strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// Principal is who a request to a hub acts for: the credential that
// authenticated it. Its Name ("Alex's Team") and the client it uses
// (claude-code) make the members it joins as; never a field of the
// request.
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
