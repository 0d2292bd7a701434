package identity_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// An agent's token names a member per client (two clients of one token
// are two members), of kind mcp_harness with no process standing for it;
// a long token name is cut as a slug is.
func TestNameCredentialOfAnAgent(t *testing.T) {
	must := named(t)
	claims := identity.NewClaims("")
	cred := identity.Credential{Token: "Ana Laptop", Role: identity.RoleAgent}
	claude := must(claims.NameCredential(cred, identity.Client{Name: "claude-code", Version: "2.0"}))
	want := stick.Caller{AgentID: "claude-code@ana-laptop", Kind: stick.KindHarness, DisplayName: "claude-code 2.0"}
	if claude.Caller != want || claude.Harness != "claude-code" || claude.Instance != 1 {
		t.Fatalf("claude: %+v, want %+v", claude, want)
	}
	codex := must(claims.NameCredential(cred, identity.Client{Name: "codex-mcp-client"}))
	if codex.Caller.AgentID != "codex@ana-laptop" || codex.Instance != 1 {
		t.Fatalf("two clients of one token are two members: %+v", codex)
	}
	long := must(claims.NameCredential(identity.Credential{Token: strings.Repeat("x", 100), Role: identity.RoleAgent}, identity.Client{Name: "claude-code"}))
	if long.Caller.AgentID != "claude-code@"+strings.Repeat("x", 32) {
		t.Fatalf("a long token name: %s", long.Caller.AgentID)
	}
	for _, c := range []*identity.Connection{claude, codex, long} {
		c.Release()
	}
}

// A person's token names the person, as a terminal names its user: one
// member however many connections, none of them claimed.
func TestNameCredentialOfAPerson(t *testing.T) {
	must := named(t)
	claims := identity.NewClaims("")
	cred := identity.Credential{Token: "Ana", Role: identity.RoleHuman}
	a := must(claims.NameCredential(cred, identity.Client{Name: "stick web", Version: "1"}))
	b := must(claims.NameCredential(cred, identity.Client{Name: "curl"}))
	want := stick.Caller{AgentID: "human:ana", Kind: stick.KindOneShot, DisplayName: "stick web 1"}
	if a.Caller != want || b.Caller.AgentID != "human:ana" || b.Instance != 1 {
		t.Fatalf("a person: %+v %+v", a, b)
	}
	a.Release()
	b.Release()
	local := identity.NameInvocation("", identity.Facts{Getenv: env{"USER": "ana"}.get})
	if local.AgentID != a.Caller.AgentID {
		t.Fatalf("a person is %s at a terminal and %s with a token", local.AgentID, a.Caller.AgentID)
	}
}

// No id derived on a host can be named by an agent's token: derived ids
// have no "@".
func TestNameCredentialNeverNamesADerivedID(t *testing.T) {
	for _, id := range []string{
		identity.AgentID("claude-code@x", proc(20, "c").Identity, "s"),
		identity.InstanceID("codex", proc(20, "c").Identity, "", 7),
		identity.NameInvocation("", identity.Facts{Getenv: env{"USER": "a@b"}.get}).AgentID,
	} {
		if strings.Contains(id, "@") {
			t.Errorf("a derived id holds an @: %s", id)
		}
	}
}

// A role it does not know, or a token name with nothing to name a caller
// by, is invalid_argument, and nothing is claimed.
func TestNameCredentialRefuses(t *testing.T) {
	claims := identity.NewClaims("")
	for _, cred := range []identity.Credential{
		{Token: "ana", Role: ""},
		{Token: "ana", Role: "admin"},
		{Token: " !! ", Role: identity.RoleAgent},
		{Token: "", Role: identity.RoleHuman},
	} {
		c, err := claims.NameCredential(cred, identity.Client{Name: "claude-code"})
		if e := stick.AsError(err); c != nil || e == nil || e.Code != stick.CodeInvalidArgument || e.Hint == "" {
			t.Errorf("%+v: %+v %v", cred, c, err)
		}
	}
	if c, err := claims.NameCredential(identity.Credential{Token: "ana", Role: identity.RoleAgent}, identity.Client{Name: "claude-code"}); err != nil || c.Instance != 1 {
		t.Fatalf("a refused credential claimed an id: %+v %v", c, err)
	}
}
