package storetest

import (
	"slices"

	"github.com/stickhq/stick/stick"
)

var tokenCases = []testCase{
	{"CreateAndFindByHash", testTokenFind},
	{"InTheOrderCreated", testTokenOrder},
	{"SaveKeepsWhatNeverChanges", testTokenSave},
	{"RollbackAndView", testTokenRollback},
}

// token is a token named name with the role of an agent, made at at(n),
// and the hash of the secret "stk_" + name.
func token(id, name string, n int) (stick.Token, stick.TokenHash) {
	return stick.Token{ID: id, Name: name, Role: stick.AccessAgent, CreatedAt: at(n)}, stick.HashSecret("stk_" + name)
}

// createTokens creates tokens in one Update of e's first handle.
func createTokens(e *env, toks []stick.Token, hashes []stick.TokenHash) {
	e.t.Helper()
	e.update(e.s, func(tx stick.Tx) error {
		for i, t := range toks {
			if err := tx.CreateToken(t, hashes[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// normToken is t with its times in UTC and its scope's empty lists nil.
func normToken(t stick.Token) stick.Token {
	t.CreatedAt, t.ExpiresAt, t.RevokedAt, t.LastUsedAt = utc(t.CreatedAt), utc(t.ExpiresAt), utc(t.RevokedAt), utc(t.LastUsedAt)
	if len(t.Rooms.Names) == 0 {
		t.Rooms.Names = nil
	}
	if len(t.Rooms.KeyPrefixes) == 0 {
		t.Rooms.KeyPrefixes = nil
	}
	return t
}

// tokenByHash reads the token of hash on s.
func tokenByHash(e *env, s stick.Store, hash stick.TokenHash) (stick.Token, bool) {
	e.t.Helper()
	var t stick.Token
	var ok bool
	e.view(s, func(tx stick.Tx) error {
		var err error
		t, ok, err = tx.TokenByHash(hash)
		return err
	})
	return t, ok
}

// A token is found by the hash of its secret, with every field as
// created (its role, its scope, its times, set or not), from another
// handle too; a hash of no token finds nothing, and neither does one
// that differs in its last byte.
func testTokenFind(e *env) {
	ana, anaHash := token("tok_ana", "Ana", 1)
	team, teamHash := token("tok_team", "Alex's Team", 2)
	team.Role = stick.AccessOperator
	team.Rooms = stick.Scope{Names: []string{"release-1.4-review", "triage"}, KeyPrefixes: []string{"github.com/acme/"}}
	team.ExpiresAt, team.LastUsedAt = at(1000), at(3)
	view, viewHash := token("tok_view", "viewer", 3)
	view.Role, view.RevokedAt = stick.AccessViewer, at(4)
	createTokens(e, []stick.Token{ana, team, view}, []stick.TokenHash{anaHash, teamHash, viewHash})
	other := e.handle()
	for _, tc := range []struct {
		tok  stick.Token
		hash stick.TokenHash
	}{{ana, anaHash}, {team, teamHash}, {view, viewHash}} {
		for _, s := range []stick.Store{e.s, other} {
			got, ok := tokenByHash(e, s, tc.hash)
			if !ok {
				e.t.Fatalf("TokenByHash of %s found nothing", tc.tok.ID)
			}
			mustEqual(e, "the token TokenByHash found", got, tc.tok, normToken)
		}
	}
	near := anaHash
	near[len(near)-1] ^= 1
	for name, h := range map[string]stick.TokenHash{"no token's": stick.HashSecret("stk_nobody"), "a hash one bit off": near, "zero": {}} {
		if got, ok := tokenByHash(e, e.s, h); ok {
			e.t.Errorf("TokenByHash of %s hash found %s", name, got.ID)
		}
	}
}

// Tokens lists every token, revoked and expired ones too, in the order
// they were created, whatever their CreatedAt.
func testTokenOrder(e *env) {
	if got := read(e, func(tx stick.Tx) ([]stick.Token, error) { return tx.Tokens() }); len(got) != 0 {
		e.t.Fatalf("Tokens of an empty store: %+v", got)
	}
	b, bh := token("tok_b", "b", 5)
	a, ah := token("tok_a", "a", 1)
	a.RevokedAt = at(2)
	c, ch := token("tok_c", "c", 5)
	c.ExpiresAt = at(6)
	createTokens(e, []stick.Token{b}, []stick.TokenHash{bh})
	createTokens(e, []stick.Token{a, c}, []stick.TokenHash{ah, ch})
	got := read(e, func(tx stick.Tx) ([]stick.Token, error) { return tx.Tokens() })
	mustEqual(e, "Tokens", got, []stick.Token{b, a, c}, normAll(normToken))
}

// SaveToken stores a revocation and a last use, and keeps the rest as
// created: a changed name, role, scope or expiry is not stored, and the
// token is still found by its hash, from another handle too.
func testTokenSave(e *env) {
	t, h := token("tok_1", "ana", 1)
	t.Rooms = stick.Scope{Names: []string{"triage"}}
	createTokens(e, []stick.Token{t}, []stick.TokenHash{h})
	changed := t
	changed.Name, changed.Role, changed.Rooms, changed.ExpiresAt, changed.CreatedAt = "bob", stick.AccessOperator, stick.Scope{}, at(9), at(8)
	changed.RevokedAt, changed.LastUsedAt = at(7), at(6)
	e.update(e.s, func(tx stick.Tx) error { return tx.SaveToken(changed) })
	want := t
	want.RevokedAt, want.LastUsedAt = at(7), at(6)
	got, ok := tokenByHash(e, e.s, h)
	if !ok {
		e.t.Fatal("a saved token is no longer found by its hash")
	}
	mustEqual(e, "a saved token", got, want, normToken)
	want.LastUsedAt = at(20)
	e.update(e.s, func(tx stick.Tx) error { return tx.SaveToken(want) })
	got, _ = tokenByHash(e, e.handle(), h)
	mustEqual(e, "a token whose last use was saved again", got, want, normToken)
	all := read(e, func(tx stick.Tx) ([]stick.Token, error) { return tx.Tokens() })
	mustEqual(e, "Tokens after saves", all, []stick.Token{want}, normAll(normToken))
}

// A token created or saved in an Update that fails is not stored; inside
// a View, CreateToken and SaveToken fail.
func testTokenRollback(e *env) {
	kept, kh := token("tok_kept", "kept", 1)
	createTokens(e, []stick.Token{kept}, []stick.TokenHash{kh})
	lost, lh := token("tok_lost", "lost", 2)
	err := e.s.Update(e.ctx, func(tx stick.Tx) error {
		if err := tx.CreateToken(lost, lh); err != nil {
			return err
		}
		revoked := kept
		revoked.RevokedAt = at(3)
		if err := tx.SaveToken(revoked); err != nil {
			return err
		}
		return errRollback
	})
	if err == nil {
		e.t.Fatal("an update whose function failed returned nil")
	}
	if _, ok := tokenByHash(e, e.s, lh); ok {
		e.t.Error("a token created in a rolled-back update was stored")
	}
	if got, _ := tokenByHash(e, e.s, kh); !got.RevokedAt.IsZero() {
		e.t.Error("a revocation saved in a rolled-back update was stored")
	}
	e.view(e.s, func(tx stick.Tx) error {
		if tx.CreateToken(lost, lh) == nil {
			e.t.Error("CreateToken inside View succeeded; write methods must fail in a read transaction")
		}
		revoked := kept
		revoked.RevokedAt = at(3)
		if tx.SaveToken(revoked) == nil {
			e.t.Error("SaveToken inside View succeeded; write methods must fail in a read transaction")
		}
		return nil
	})
	ids := read(e, func(tx stick.Tx) ([]string, error) {
		toks, err := tx.Tokens()
		var ids []string
		for _, t := range toks {
			ids = append(ids, t.ID)
		}
		return ids, err
	})
	if !slices.Equal(ids, []string{"tok_kept"}) {
		e.t.Fatalf("tokens after the rollback and the View: %q, want only tok_kept", ids)
	}
	if got, _ := tokenByHash(e, e.s, kh); !got.RevokedAt.IsZero() {
		e.t.Error("a revocation saved inside a View was stored")
	}
}
