package identity_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// team is the principal of the token "Alex's Team".
var team = stick.Principal{TokenID: "tok_0123456789abcdef", Name: "Alex's Team", Role: stick.AccessAgent}

// A token names a member per client (two clients of one token are two
// members), of kind mcp_harness with no process standing for it, its
// display name the token's and the client's; each id is one of the
// principal's members, and of no other token's.
func TestNamePrincipal(t *testing.T) {
	claude, err := identity.NamePrincipal(team, identity.Client{Name: "claude-code", Version: "2.0"}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := stick.Caller{AgentID: "claude-code@alex-s-team", Kind: stick.KindHarness, DisplayName: "Alex's Team (claude-code 2.0)"}
	if claude != want {
		t.Fatalf("claude: %+v, want %+v", claude, want)
	}
	codex, _ := identity.NamePrincipal(team, identity.Client{Name: "codex-mcp-client"}, "")
	if codex.AgentID != "codex@alex-s-team" || codex.DisplayName != "Alex's Team (codex-mcp-client)" {
		t.Fatalf("two clients of one token are two members: %+v", codex)
	}
	curl, _ := identity.NamePrincipal(team, identity.Client{}, "")
	if curl.AgentID != "mcp@alex-s-team" || curl.DisplayName != "Alex's Team" {
		t.Fatalf("a client with no name: %+v", curl)
	}
	other := stick.Principal{Name: "Bob", Role: stick.AccessAgent}
	for _, c := range []stick.Caller{claude, codex, curl} {
		if !team.Owns(c.AgentID) || other.Owns(c.AgentID) {
			t.Errorf("%s: owned by its token %v, by another %v", c.AgentID, team.Owns(c.AgentID), other.Owns(c.AgentID))
		}
	}
	long, _ := identity.NamePrincipal(stick.Principal{Name: strings.Repeat("x", 64)}, identity.Client{Name: strings.Repeat("c", 64)}, "")
	if long.AgentID != strings.Repeat("c", 32)+"@"+strings.Repeat("x", 32) || len(long.AgentID) > stick.MaxAgentIDLen {
		t.Fatalf("long names: %s", long.AgentID)
	}
}

// A session tells two agents of one client and one token apart, and the
// same session names the same member again; a session only ever picks
// among the token's own members.
func TestNamePrincipalSessions(t *testing.T) {
	client := identity.Client{Name: "claude-code"}
	a, _ := identity.NamePrincipal(team, client, "session-a")
	a2, _ := identity.NamePrincipal(team, client, "session-a")
	b, _ := identity.NamePrincipal(team, client, "session-b")
	none, _ := identity.NamePrincipal(team, client, "")
	if a != a2 || a.AgentID == b.AgentID || a.AgentID == none.AgentID {
		t.Fatalf("sessions: %s %s %s %s", a.AgentID, a2.AgentID, b.AgentID, none.AgentID)
	}
	if !strings.HasPrefix(a.AgentID, "claude-code:") || !strings.HasSuffix(a.AgentID, "@alex-s-team") || len(a.AgentID) != len("claude-code:123456@alex-s-team") {
		t.Fatalf("a session's member: %s", a.AgentID)
	}
	for _, s := range []string{"x@other", "@", "session\x00", strings.Repeat("s", 10000)} {
		c, err := identity.NamePrincipal(team, client, s)
		if err != nil || !team.Owns(c.AgentID) {
			t.Errorf("session %q: %s %v", s, c.AgentID, err)
		}
	}
}

// No id derived on a host can be named by a token: derived ids have no
// "@".
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

// A principal whose name has nothing to name a member by is
// invalid_argument, and nothing is claimed.
func TestNameCredentialRefuses(t *testing.T) {
	claims := identity.NewClaims("")
	for _, name := range []string{"", " !! ", "日本"} {
		p := stick.Principal{Name: name, Role: stick.AccessAgent}
		c, err := claims.NameCredential(p, identity.Client{Name: "claude-code"}, "")
		if e := stick.AsError(err); c != nil || e == nil || e.Code != stick.CodeInvalidArgument || e.Hint == "" {
			t.Errorf("%q: %+v %v", name, c, err)
		}
		if _, err := identity.NamePrincipal(p, identity.Client{Name: "claude-code"}, ""); stick.ErrorCode(err) != stick.CodeInvalidArgument {
			t.Errorf("NamePrincipal %q: %v", name, err)
		}
	}
	c, err := claims.NameCredential(team, identity.Client{Name: "claude-code"}, "")
	if err != nil || c.Instance != 1 {
		t.Fatalf("a refused credential claimed an id: %+v %v", c, err)
	}
	first, _ := identity.NamePrincipal(team, identity.Client{Name: "claude-code"}, "")
	if c.Caller != first {
		t.Fatalf("the first connection is %+v, a request %+v", c.Caller, first)
	}
	c.Release()
}
