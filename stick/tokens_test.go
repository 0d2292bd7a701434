package stick_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

var secretRE = regexp.MustCompile(`^stk_[0-9a-f]{64}$`)

// A new token's secret is stk_ and 256 random bits in hex, different
// every time; the token it returns is what the list shows, with the role
// agent unless another is asked for, and its secret authenticates as its
// principal.
func TestCreateToken(t *testing.T) {
	e := newEnv(t)
	tok, secret, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "Alex's Team"})
	if err != nil {
		t.Fatal(err)
	}
	if !secretRE.MatchString(secret) || len(secret) != stick.SecretLen {
		t.Fatalf("secret %q", secret)
	}
	if !regexp.MustCompile(`^tok_[0-9a-f]{16}$`).MatchString(tok.ID) || tok.Name != "Alex's Team" || tok.Role != stick.AccessAgent ||
		!tok.CreatedAt.Equal(epoch) || !tok.ExpiresAt.IsZero() || !tok.Rooms.All() {
		t.Fatalf("token %+v", tok)
	}
	_, other, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "ops", Role: stick.AccessOperator, ExpiresIn: time.Hour,
		Rooms: stick.Scope{Names: []string{"triage", "triage"}, KeyPrefixes: []string{"github.com/acme/"}}})
	if err != nil {
		t.Fatal(err)
	}
	if other == secret {
		t.Fatal("two tokens got one secret")
	}
	toks, err := e.svc.ListTokens(e.ctx)
	if err != nil || len(toks) != 2 {
		t.Fatalf("list: %+v %v", toks, err)
	}
	if toks[0].ID != tok.ID || toks[1].Role != stick.AccessOperator || !toks[1].ExpiresAt.Equal(epoch.Add(time.Hour)) ||
		strings.Join(toks[1].Rooms.Names, ",") != "triage" {
		t.Fatalf("list: %+v", toks)
	}
	if j, _ := json.Marshal(toks); strings.Contains(string(j), "stk_") || strings.Contains(string(j), "hash") {
		t.Fatalf("the list shows a secret or a hash: %s", j)
	}
	p, err := e.svc.Authenticate(e.ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	want := stick.Principal{TokenID: tok.ID, Name: "Alex's Team", Role: stick.AccessAgent}
	if p.TokenID != want.TokenID || p.Name != want.Name || p.Role != want.Role || !p.Rooms.All() || p.Handle() != "alex-s-team" {
		t.Fatalf("principal %+v, want %+v", p, want)
	}
	at := epoch.Add(2 * time.Hour)
	tok3, _, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "later", ExpiresAt: at})
	if err != nil || !tok3.ExpiresAt.Equal(at) {
		t.Fatalf("expires_at: %+v %v", tok3, err)
	}
}

// A token request is refused, naming its field and creating nothing, for
// a name that breaks the rule or names members as an unrevoked token's
// name does, an unknown role, a bad scope, or a bad expiry. A revoked
// token's name is free again.
func TestCreateTokenRefuses(t *testing.T) {
	e := newEnv(t)
	if _, _, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "Alex's Team"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req   stick.TokenRequest
		field string
	}{
		{stick.TokenRequest{}, "name"},
		{stick.TokenRequest{Name: " ana"}, "name"},
		{stick.TokenRequest{Name: "ana "}, "name"},
		{stick.TokenRequest{Name: "!!!"}, "name"},
		{stick.TokenRequest{Name: "日本"}, "name"},
		{stick.TokenRequest{Name: "a\tb"}, "name"},
		{stick.TokenRequest{Name: "a\u200bb"}, "name"},
		{stick.TokenRequest{Name: "bad\xffutf8"}, "name"},
		{stick.TokenRequest{Name: strings.Repeat("a", 65)}, "name"},
		{stick.TokenRequest{Name: "tok_0123456789abcdef"}, "name"},
		{stick.TokenRequest{Name: "Alex's Team"}, "name"},
		{stick.TokenRequest{Name: "alex S team"}, "name"},
		{stick.TokenRequest{Name: "ana", Role: "admin"}, "role"},
		{stick.TokenRequest{Name: "ana", Rooms: stick.Scope{Names: []string{"Not A Name"}}}, "rooms.names"},
		{stick.TokenRequest{Name: "ana", Rooms: stick.Scope{KeyPrefixes: []string{""}}}, "rooms.key_prefixes"},
		{stick.TokenRequest{Name: "ana", Rooms: stick.Scope{KeyPrefixes: []string{"github.com/a b"}}}, "rooms.key_prefixes"},
		{stick.TokenRequest{Name: "ana", Rooms: stick.Scope{Names: make([]string, stick.MaxScopeEntries+1)}}, "rooms"},
		{stick.TokenRequest{Name: "ana", ExpiresIn: -time.Second}, "expires_in"},
		{stick.TokenRequest{Name: "ana", ExpiresAt: epoch}, "expires_at"},
		{stick.TokenRequest{Name: "ana", ExpiresIn: time.Hour, ExpiresAt: epoch.Add(2 * time.Hour)}, "expires_at"},
	} {
		_, secret, err := e.svc.CreateToken(e.ctx, tc.req)
		se := wantCode(t, err, stick.CodeInvalidArgument)
		if se.Details["field"] != tc.field || secret != "" {
			t.Errorf("%+v: field %v, want %s (%s)", tc.req, se.Details["field"], tc.field, se.Message)
		}
		if se.Hint == "" && strings.HasPrefix(tc.field, "name") {
			t.Errorf("%+v: no hint", tc.req)
		}
	}
	if toks, _ := e.svc.ListTokens(e.ctx); len(toks) != 1 {
		t.Fatalf("refused requests made tokens: %+v", toks)
	}
	if _, err := e.svc.RevokeToken(e.ctx, "Alex's Team"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "alex S team"}); err != nil {
		t.Fatalf("a revoked token's handle is free again: %v", err)
	}
	if _, _, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: strings.Repeat("é", 64)}); err == nil {
		t.Fatal("a name without an ASCII letter was accepted")
	}
	if _, _, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "Ana's laptop " + strings.Repeat("é", 51)}); err != nil {
		t.Fatalf("a name of 64 characters: %v", err)
	}
}

// Revoking finds a token by its id or its name; from then on its secret
// authenticates nothing; revoking it again changes nothing; a name or id
// of no token is refused.
func TestRevokeToken(t *testing.T) {
	e := newEnv(t)
	a, sa, _ := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "a"})
	_, sb, _ := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "b"})
	e.clock.Advance(time.Minute)
	res, err := e.svc.RevokeToken(e.ctx, a.ID)
	if err != nil || res.Already || res.Token.ID != a.ID || !res.Token.RevokedAt.Equal(epoch.Add(time.Minute)) {
		t.Fatalf("revoke by id: %+v %v", res, err)
	}
	wantCode(t, authErr(e, sa), stick.CodeUnauthenticated)
	if _, err := e.svc.Authenticate(e.ctx, sb); err != nil {
		t.Fatalf("another token stopped working: %v", err)
	}
	e.clock.Advance(time.Minute)
	res, err = e.svc.RevokeToken(e.ctx, "a")
	if err != nil || !res.Already || !res.Token.RevokedAt.Equal(epoch.Add(time.Minute)) {
		t.Fatalf("revoke again by name: %+v %v", res, err)
	}
	res, err = e.svc.RevokeToken(e.ctx, "b")
	if err != nil || res.Already || res.Token.Name != "b" {
		t.Fatalf("revoke by name: %+v %v", res, err)
	}
	wantCode(t, authErr(e, sb), stick.CodeUnauthenticated)
	for _, ref := range []string{"c", "tok_0000000000000000", ""} {
		_, err := e.svc.RevokeToken(e.ctx, ref)
		if se := wantCode(t, err, stick.CodeInvalidArgument); se.Details["field"] != "token" || !strings.Contains(se.Hint, "stick token list") {
			t.Fatalf("revoke %q: %+v", ref, se)
		}
	}
	toks, _ := e.svc.ListTokens(e.ctx)
	for _, tok := range toks {
		if tok.StateAt(e.clock.Now()) != stick.TokenRevoked || tok.State != stick.TokenRevoked {
			t.Fatalf("%s is %s (listed as %s)", tok.Name, tok.StateAt(e.clock.Now()), tok.State)
		}
	}
}

func authErr(e *env, secret string) error {
	_, err := e.svc.Authenticate(e.ctx, secret)
	return err
}

// Every secret that does not authenticate, whatever the reason (empty,
// malformed, unknown, revoked, expired), is unauthenticated with one and
// the same message and hint, which say what to do and nothing of why.
func TestAuthenticateRefusesAlike(t *testing.T) {
	e := newEnv(t)
	_, good, _ := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "good"})
	_, revoked, _ := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "revoked"})
	_, expired, _ := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "expired", ExpiresIn: time.Minute})
	if _, err := e.svc.RevokeToken(e.ctx, "revoked"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Authenticate(e.ctx, expired); err != nil {
		t.Fatalf("a token before its expiry: %v", err)
	}
	e.clock.Advance(time.Minute)
	var first *stick.Error
	for name, s := range map[string]string{
		"empty": "", "malformed": "hello", "no prefix": good[4:], "upper case": strings.ToUpper(good), "with a space": good + " ",
		"bearer": "Bearer " + good, "one short": good[:len(good)-1], "unknown": "stk_" + strings.Repeat("0", 64),
		"revoked": revoked, "expired": expired,
	} {
		se := wantCode(t, authErr(e, s), stick.CodeUnauthenticated)
		if first == nil {
			first = se
		}
		if se.Message != first.Message || se.Hint != first.Hint || len(se.Details) != 0 {
			t.Errorf("%s: %q (%s) differs from %q (%s)", name, se.Message, se.Hint, first.Message, first.Hint)
		}
		for _, word := range []string{"revoked", "expired", "unknown"} {
			if !strings.Contains(se.Message, word) {
				t.Errorf("the message names some reasons, not all: %q", se.Message)
			}
		}
	}
	if !strings.Contains(first.Hint, "operator") || !strings.Contains(first.Hint, "stick token list") {
		t.Fatalf("hint %q", first.Hint)
	}
	if _, err := e.svc.Authenticate(e.ctx, good); err != nil {
		t.Fatal(err)
	}
}

// Authenticating records the token's last use, once per TokenUseGrain.
func TestAuthenticateRecordsLastUse(t *testing.T) {
	e := newEnv(t)
	_, secret, _ := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "t"})
	lastUsed := func() time.Time {
		toks, err := e.svc.ListTokens(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return toks[0].LastUsedAt
	}
	if !lastUsed().IsZero() {
		t.Fatal("a new token was used")
	}
	e.clock.Advance(time.Second)
	if _, err := e.svc.Authenticate(e.ctx, secret); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); !got.Equal(epoch.Add(time.Second)) {
		t.Fatalf("last used %v", got)
	}
	e.clock.Advance(stick.TokenUseGrain - time.Second)
	_, _ = e.svc.Authenticate(e.ctx, secret)
	if got := lastUsed(); !got.Equal(epoch.Add(time.Second)) {
		t.Fatalf("last used moved within the grain: %v", got)
	}
	e.clock.Advance(time.Second)
	_, _ = e.svc.Authenticate(e.ctx, secret)
	if got := lastUsed(); !got.Equal(epoch.Add(stick.TokenUseGrain + time.Second)) {
		t.Fatalf("last used after the grain: %v", got)
	}
}

// An operator limited to some rooms makes, lists and revokes only tokens
// within its own scope.
func TestScopedOperatorManagesItsOwnTokens(t *testing.T) {
	e := newEnv(t)
	acme := stick.Scope{KeyPrefixes: []string{"github.com/acme/"}, Names: []string{"triage"}}
	op := e.svc.As(stick.Principal{TokenID: "tok_0123456789abcdef", Name: "acme ops", Role: stick.AccessOperator, Rooms: acme})
	if _, _, err := e.svc.CreateToken(e.ctx, stick.TokenRequest{Name: "everything"}); err != nil {
		t.Fatal(err)
	}
	for _, rooms := range []stick.Scope{{}, {Names: []string{"other"}}, {KeyPrefixes: []string{"github.com/"}}, {KeyPrefixes: []string{"github.com/acme"}}} {
		_, _, err := op.CreateToken(e.ctx, stick.TokenRequest{Name: "wide", Rooms: rooms})
		wantCode(t, err, stick.CodeForbidden)
	}
	for _, rooms := range []stick.Scope{acme, {KeyPrefixes: []string{"github.com/acme/api"}}, {Names: []string{"triage"}}} {
		if _, _, err := op.CreateToken(e.ctx, stick.TokenRequest{Name: "acme " + stick.TokenHandle(strings.Join(append(rooms.Names, rooms.KeyPrefixes...), " ")), Rooms: rooms}); err != nil {
			t.Fatalf("%+v: %v", rooms, err)
		}
	}
	toks, err := op.ListTokens(e.ctx)
	if err != nil || len(toks) != 3 {
		t.Fatalf("the scoped operator lists %+v %v, want its 3", toks, err)
	}
	_, err = op.RevokeToken(e.ctx, "everything")
	wantCode(t, err, stick.CodeInvalidArgument)
	if all, _ := e.svc.ListTokens(e.ctx); len(all) != 4 {
		t.Fatalf("the unrestricted list has %d tokens", len(all))
	}
}

// FuzzAuthenticate presents arbitrary strings as secrets: Authenticate
// never panics, and refuses every one, with unauthenticated and the same
// message, except the secret of the one active token.
func FuzzAuthenticate(f *testing.F) {
	st, err := store.OpenDir(f.TempDir(), store.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		f.Fatal(err)
	}
	ctx := f.Context()
	_, good, err := svc.CreateToken(ctx, stick.TokenRequest{Name: "good"})
	if err != nil {
		f.Fatal(err)
	}
	_, revoked, _ := svc.CreateToken(ctx, stick.TokenRequest{Name: "revoked"})
	if _, err := svc.RevokeToken(ctx, "revoked"); err != nil {
		f.Fatal(err)
	}
	refusal := stick.AsError(func() error { _, err := svc.Authenticate(ctx, ""); return err }())
	for _, s := range []string{"", good, revoked, "stk_", "stk_" + strings.Repeat("a", 64), strings.ToUpper(good), good + "\n",
		"Bearer " + good, good[:20], "stk_\x00\xff", strings.Repeat("stk_", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := svc.Authenticate(ctx, s)
		if s == good {
			if err != nil || p.Name != "good" {
				t.Fatalf("the good secret: %+v %v", p, err)
			}
			return
		}
		se := stick.AsError(err)
		if se == nil || se.Code != stick.CodeUnauthenticated || se.Message != refusal.Message || p.TokenID != "" {
			t.Fatalf("Authenticate(%q) = %+v, %v; want unauthenticated", s, p, err)
		}
	})
}
