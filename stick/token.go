package stick

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A token is how a hub knows who calls it: an operator makes one per team
// or person (Service.CreateToken), hands its secret over once, and every
// request presents the secret (Service.Authenticate). The token's name
// ("Alex's Team") names the members its clients join as, its role says
// what they may do (Access) and its scope which rooms they reach.

// Token is a hub's credential as the store keeps it: everything but its
// secret, which nobody can read back (only the secret's hash is stored).
type Token struct {
	// ID identifies the token in lists and revocations: "tok_" and 16 hex
	// digits. It is no secret.
	ID string `json:"token_id"`
	// Name is chosen by the operator who made it (see TokenNameRule).
	Name  string     `json:"name"`
	Role  AccessRole `json:"role"`
	Rooms Scope      `json:"rooms"`
	// CreatedAt is when it was made.
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt is when it stops working; zero for never.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// RevokedAt is when it was revoked; zero while it is not.
	RevokedAt time.Time `json:"revoked_at,omitzero"`
	// LastUsedAt is when a request last presented it, to within
	// TokenUseGrain; zero for never.
	LastUsedAt time.Time `json:"last_used_at,omitzero"`
	// State is whether it works, as the Service judged it when it
	// returned the token (see Token.StateAt); a store neither keeps nor
	// gives it.
	State TokenState `json:"state,omitempty"`
}

// TokenState says whether a token works.
type TokenState string

// The states of a token.
const (
	TokenActive  TokenState = "active"
	TokenExpired TokenState = "expired"
	TokenRevoked TokenState = "revoked"
)

// StateAt returns whether t works at now: revoked, else expired once now
// reaches ExpiresAt, else active.
func (t Token) StateAt(now time.Time) TokenState {
	switch {
	case !t.RevokedAt.IsZero():
		return TokenRevoked
	case !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt):
		return TokenExpired
	}
	return TokenActive
}

// Principal returns the principal requests that present t act for.
func (t Token) Principal() Principal {
	return Principal{TokenID: t.ID, Name: t.Name, Role: t.Role, Rooms: t.Rooms, ExpiresAt: t.ExpiresAt}
}

// TokenRequest asks for a new token.
type TokenRequest struct {
	// Name follows TokenNameRule; no other unrevoked token may have a name
	// of the same TokenHandle, since the handle names the members.
	Name string
	// Role is what the token may do; "" means AccessAgent.
	Role AccessRole
	// Rooms limits the rooms it reaches; the zero Scope reaches all.
	Rooms Scope
	// ExpiresIn makes the token stop working this long after it is made;
	// ExpiresAt at that instant. Give at most one; neither means never.
	ExpiresIn time.Duration
	ExpiresAt time.Time
}

// Limits and forms of tokens.
const (
	// MaxTokenNameLen bounds a token name, in characters.
	MaxTokenNameLen = 64
	// MaxHandleLen bounds a TokenHandle, in bytes.
	MaxHandleLen = 32
	// SecretPrefix starts every token secret, so that people, logs and
	// secret scanners recognise one.
	SecretPrefix = "stk_"
	// secretBytes is the randomness of a secret: 256 bits.
	secretBytes = 32
	// SecretLen is the length of a secret: the prefix and 64 hex digits.
	SecretLen = len(SecretPrefix) + 2*secretBytes
	// tokenIDPrefix starts every token id.
	tokenIDPrefix = "tok_"
	// TokenUseGrain is how precisely Token.LastUsedAt is kept: a request
	// writes it only when it is older than this, so that authenticating
	// costs a write a minute per token, not one per request.
	TokenUseGrain = time.Minute
)

// TokenNameRule says what a token name may be.
const TokenNameRule = "1 to 64 printable characters, no space at either end, with at least one ASCII letter or digit, and not a token id"

var tokenIDRE = regexp.MustCompile(`^tok_[0-9a-f]{16}$`)

// TokenHash is the SHA-256 hash of a token's secret (HashSecret), the only
// form in which a store keeps it. A slow password hash (bcrypt, argon2)
// is not needed: it protects guessable secrets from a guessing attack on a
// stolen hash, and a secret is 256 random bits, which no attacker can
// guess however fast each guess is; a fast hash also lets Authenticate
// find the token by its hash with one indexed read.
type TokenHash [sha256.Size]byte

// HashSecret returns the hash a store keeps of secret.
func HashSecret(secret string) TokenHash { return sha256.Sum256([]byte(secret)) }

// newSecret returns a fresh secret: SecretPrefix and 256 random bits in
// lower-case hex.
func newSecret() string {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return SecretPrefix + hex.EncodeToString(b)
}

// secretShaped reports whether s has the form of a secret: SecretPrefix
// and 64 lower-case hex digits. Anything else is no secret stick made, and
// Authenticate refuses it without reading the store.
func secretShaped(s string) bool {
	rest, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok || len(rest) != 2*secretBytes {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Slugify returns s as identifiers carry it: its ASCII letters and digits
// in lower case, each run of other characters as one dash, and no dash at
// either end ("Alex's Team" → "alex-s-team"); "" when s has no ASCII
// letter or digit.
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// TokenHandle is a token name as the agent ids of the token's members
// carry it: Slugify(name) cut to MaxHandleLen bytes, with no dash at its
// end. Two unrevoked tokens never share one, so their members never share
// an agent id.
func TokenHandle(name string) string {
	h := Slugify(name)
	if len(h) > MaxHandleLen {
		h = strings.TrimSuffix(h[:MaxHandleLen], "-")
	}
	return h
}

// checkTokenName returns invalid_argument on field unless name follows
// TokenNameRule.
func checkTokenName(field, name string) error {
	bad := func(why string) error {
		return invalidArg(field, "token name %s %s: a token name is %s", Quote(name), why, TokenNameRule).
			WithHint("name the team or person the token is for, for example \"Alex's Team\" or ana-laptop")
	}
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		return invalidArg(field, "the token name must be non-empty: a token name is %s", TokenNameRule).
			WithHint("name the team or person the token is for, for example \"Alex's Team\" or ana-laptop")
	case !utf8.ValidString(name):
		return bad("is not valid UTF-8")
	case n > MaxTokenNameLen:
		return bad("is too long")
	case strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }):
		return bad("has a character that is not printable")
	case strings.TrimSpace(name) != name:
		return bad("has a space at one end")
	case Slugify(name) == "":
		return bad("has no ASCII letter or digit")
	case tokenIDRE.MatchString(name):
		return bad("has the form of a token id")
	}
	return nil
}
