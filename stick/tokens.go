package stick

import (
	"context"
	"slices"
	"time"
)

// CreateToken makes a token and returns it with its secret, which is
// shown this once: the store keeps only its hash (HashSecret), so nobody
// can read it back, and a lost secret is replaced by a new token. The
// secret is SecretPrefix and 256 random bits from crypto/rand in hex.
// The role defaults to agent. A Service acting for a principal limited to
// some rooms may only make a token its scope covers (Scope.Covers).
//
// The first token of a hub is made on its host by a Service that acts for
// no principal ('stick token create' opens the database directly): whoever
// can write the database may make tokens; over the hub, only an operator.
//
// Errors: invalid_argument (name, role, rooms, expires_in, expires_at,
// also a name whose TokenHandle an unrevoked token's name has),
// forbidden (a scope wider than the principal's).
func (s *Service) CreateToken(ctx context.Context, req TokenRequest) (Token, string, error) {
	if err := s.allow(ActionCreateToken); err != nil {
		return Token{}, "", err
	}
	if err := checkTokenName("name", req.Name); err != nil {
		return Token{}, "", err
	}
	if req.Role == "" {
		req.Role = AccessAgent
	}
	if !req.Role.Valid() {
		return Token{}, "", invalidArg("role", "role %s is none of viewer, agent and operator", Quote(string(req.Role))).
			WithHint("viewer reads, agent also takes turns and writes notes and the document, operator also closes rooms and manages tokens")
	}
	rooms, err := req.Rooms.checked("rooms")
	if err != nil {
		return Token{}, "", err
	}
	if p := s.principal; p != nil && !p.Rooms.Covers(rooms) {
		return Token{}, "", Errorf(CodeForbidden, "the token %s reaches %s, and may not make a token that reaches more", Quote(p.Name), p.Rooms).
			WithHint("limit the new token to rooms the token %s reaches", Quote(p.Name))
	}
	// A token's times are kept to the millisecond, as every store keeps
	// them; the token returned is the one listed.
	now := s.clock.Now().Truncate(time.Millisecond)
	t := Token{ID: newID(tokenIDPrefix, 8), Name: req.Name, Role: req.Role, Rooms: rooms, CreatedAt: now, State: TokenActive}
	switch {
	case req.ExpiresIn < 0:
		return Token{}, "", invalidArg("expires_in", "expires_in must be positive, got %v", req.ExpiresIn)
	case req.ExpiresIn > 0 && !req.ExpiresAt.IsZero():
		return Token{}, "", invalidArg("expires_at", "give expires_in or expires_at, not both")
	case req.ExpiresIn > 0:
		t.ExpiresAt = now.Add(req.ExpiresIn)
	case !req.ExpiresAt.IsZero() && !req.ExpiresAt.After(now):
		return Token{}, "", invalidArg("expires_at", "expires_at %s is not in the future", req.ExpiresAt.UTC().Format(time.RFC3339))
	default:
		t.ExpiresAt = req.ExpiresAt.Truncate(time.Millisecond)
	}
	secret := newSecret()
	err = s.store.Update(ctx, func(tx Tx) error {
		toks, err := tx.Tokens()
		if err != nil {
			return err
		}
		handle := TokenHandle(t.Name)
		for _, o := range toks {
			if o.RevokedAt.IsZero() && TokenHandle(o.Name) == handle {
				what := "is taken by"
				if o.Name != t.Name {
					what = "names members as " + handle + ", as does"
				}
				return invalidArg("name", "the token name %s %s the token %s (%s), which is not revoked", Quote(t.Name), what, Quote(o.Name), o.ID).
					With("token_id", o.ID).
					WithHint("choose another name, or revoke that token first ('stick token revoke %s')", o.ID)
			}
		}
		stored := t
		stored.State = ""
		return tx.CreateToken(stored, HashSecret(secret))
	})
	if err != nil {
		return Token{}, "", err
	}
	return t, secret, nil
}

// ListTokens returns the tokens, revoked and expired ones too, oldest
// first, each with its State now: never a secret nor a hash. A Service acting for a principal
// limited to some rooms lists only the tokens its scope covers.
//
// Errors: only the store's.
func (s *Service) ListTokens(ctx context.Context) ([]Token, error) {
	if err := s.allow(ActionListTokens); err != nil {
		return nil, err
	}
	var out []Token
	err := s.store.View(ctx, func(tx Tx) error {
		toks, err := tx.Tokens()
		out = slices.DeleteFunc(toks, func(t Token) bool { return !s.manages(t) })
		return err
	})
	now := s.clock.Now()
	for i := range out {
		out[i].State = out[i].StateAt(now)
	}
	if out == nil {
		out = []Token{}
	}
	return out, err
}

// manages reports whether s may see and revoke t: it acts for no
// principal, or for one whose scope covers t's.
func (s *Service) manages(t Token) bool {
	return s.principal == nil || s.principal.Rooms.Covers(t.Rooms)
}

// RevokeResult is what RevokeToken returns.
type RevokeResult struct {
	Token Token `json:"token"`
	// Already is true when the token was revoked before: nothing changed.
	Already bool `json:"already_revoked"`
}

// RevokeToken revokes the token whose id is ref, else the unrevoked token
// named ref, else the one named ref revoked last: from now on its secret
// authenticates nothing. Revoking is for good; a revoked token keeps its
// row, listed as revoked. Revoking a revoked token changes nothing.
//
// Errors: invalid_argument (token: no token has that id or name, or none
// that a principal limited to some rooms manages).
func (s *Service) RevokeToken(ctx context.Context, ref string) (RevokeResult, error) {
	if err := s.allow(ActionRevokeToken); err != nil {
		return RevokeResult{}, err
	}
	if err := checkLen("token", ref, 4*MaxTokenNameLen); err != nil {
		return RevokeResult{}, err
	}
	var out RevokeResult
	err := s.store.Update(ctx, func(tx Tx) error {
		toks, err := tx.Tokens()
		if err != nil {
			return err
		}
		toks = slices.DeleteFunc(toks, func(t Token) bool { return !s.manages(t) })
		i := slices.IndexFunc(toks, func(t Token) bool { return t.ID == ref })
		if i < 0 {
			i = slices.IndexFunc(toks, func(t Token) bool { return t.Name == ref && t.RevokedAt.IsZero() })
		}
		if i < 0 {
			for j, t := range toks {
				if t.Name == ref && (i < 0 || t.RevokedAt.After(toks[i].RevokedAt)) {
					i = j
				}
			}
		}
		if i < 0 {
			return invalidArg("token", "no token has the id or the name %s", Quote(ref)).
				WithHint("'stick token list' shows the tokens, with their ids")
		}
		out = RevokeResult{Token: toks[i], Already: !toks[i].RevokedAt.IsZero()}
		if out.Already {
			return nil
		}
		out.Token.RevokedAt = s.clock.Now().Truncate(time.Millisecond)
		return tx.SaveToken(out.Token)
	})
	out.Token.State = TokenRevoked
	return out, err
}

// Authenticate returns the principal of the token whose secret is secret:
// what a hub calls with the secret of every request, before it acts for
// the principal (As). A secret that is malformed, unknown, revoked or
// expired is unauthenticated, with one message for all of them, so a
// caller learns nothing about which. A malformed one is refused without
// reading the store (its form is no secret); the others are looked up by
// their hash. No secret is ever compared with a secret, so no comparison
// needs to take constant time: the lookup compares hashes, and how long
// it takes can tell a guesser at most how the hash of his guess orders
// among the stored hashes, which is no help in finding a secret, since a
// SHA-256 hash cannot be inverted. Authenticate
// records when a token was last used, to within TokenUseGrain; a failure
// to record it (a busy database) does not fail the authentication.
//
// Errors: unauthenticated, and the store's own (db_busy, canceled, ...).
func (s *Service) Authenticate(ctx context.Context, secret string) (Principal, error) {
	if !secretShaped(secret) {
		return Principal{}, unauthenticated()
	}
	hash := HashSecret(secret)
	now := s.clock.Now()
	var t Token
	var found bool
	err := s.store.View(ctx, func(tx Tx) error {
		var err error
		t, found, err = tx.TokenByHash(hash)
		return err
	})
	if err != nil {
		return Principal{}, err
	}
	if !found || t.StateAt(now) != TokenActive {
		return Principal{}, unauthenticated()
	}
	if now.Sub(t.LastUsedAt) >= TokenUseGrain {
		_ = s.store.Update(ctx, func(tx Tx) error {
			cur, ok, err := tx.TokenByHash(hash)
			if err != nil || !ok || now.Sub(cur.LastUsedAt) < TokenUseGrain {
				return err
			}
			cur.LastUsedAt = now
			return tx.SaveToken(cur)
		})
	}
	return t.Principal(), nil
}
