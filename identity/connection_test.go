package identity_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// A connection is the client's slug and a hash of its harness process and
// session, a member of kind mcp_harness whose liveness is the harness; the
// same client in another session of the harness is another member.
func TestNameConnection(t *testing.T) {
	must := named(t)
	claims := identity.NewClaims(t.TempDir())
	harness := proc(20, "codex").Identity
	client := identity.Client{Name: "codex-mcp-client", Version: "0.9"}
	first := must(claims.NameConnection(client, harness, ""))
	defer first.Release()
	want := stick.Caller{AgentID: identity.AgentID("codex-mcp-client", harness, ""), Kind: stick.KindHarness, Process: harness, DisplayName: "codex-mcp-client 0.9"}
	if first.Caller != want || first.Harness != "codex" || first.Instance != 1 {
		t.Fatalf("first connection: %+v, want %+v", first, want)
	}
	other := must(claims.NameConnection(client, harness, "thread-2"))
	defer other.Release()
	if other.Caller.AgentID != identity.AgentID("codex-mcp-client", harness, "thread-2") || other.Instance != 1 {
		t.Fatalf("another session is a first instance of its own: %+v", other)
	}
}

// Two live connections named from the same facts, a harness's or a
// token's, are two members: the second is the second instance, its
// display name ending in " #2"; once the first is released, the next
// connection is the first member again (a reconnect).
func TestInstances(t *testing.T) {
	harness := proc(20, "codex").Identity
	for _, tc := range []struct {
		name     string
		connect  func(*identity.Claims) (*identity.Connection, error)
		first    string
		second   string
		display2 string
	}{
		{"a harness's connection", func(c *identity.Claims) (*identity.Connection, error) {
			return c.NameConnection(identity.Client{Name: "codex-mcp-client", Version: "0.9"}, harness, "")
		}, identity.AgentID("codex-mcp-client", harness, ""), identity.InstanceID("codex-mcp-client", harness, "", 2), "codex-mcp-client 0.9 #2"},
		{"a token", func(c *identity.Claims) (*identity.Connection, error) {
			return c.NameCredential(stick.Principal{Name: "Ana Laptop", Role: stick.AccessAgent}, identity.Client{Name: "claude-code", Version: "2.0"}, "")
		}, "claude-code@ana-laptop", "claude-code.2@ana-laptop", "Ana Laptop (claude-code 2.0 #2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			must := named(t)
			claims := identity.NewClaims(t.TempDir())
			first := must(tc.connect(claims))
			second := must(tc.connect(claims))
			if first.Caller.AgentID != tc.first || first.Instance != 1 {
				t.Fatalf("first: %+v, want %s", first, tc.first)
			}
			if second.Caller.AgentID != tc.second || second.Caller.DisplayName != tc.display2 || second.Instance != 2 {
				t.Fatalf("second: %+v, want %s (%s)", second, tc.second, tc.display2)
			}
			first.Release()
			first.Release()
			again := must(tc.connect(claims))
			if again.Caller.AgentID != tc.first {
				t.Fatalf("a reconnect after the first ended is the same member: %s, want %s", again.Caller.AgentID, tc.first)
			}
			second.Release()
			again.Release()
		})
	}
}

// A client that gives no name is "mcp" with no display name; an odd name
// is shown by its printable runes within the display name's limit.
func TestNameConnectionOfOddClients(t *testing.T) {
	must := named(t)
	claims := identity.NewClaims("")
	harness := proc(20, "x").Identity
	anon := must(claims.NameConnection(identity.Client{Version: "1.0"}, harness, ""))
	defer anon.Release()
	if anon.Caller.AgentID != identity.AgentID("mcp", harness, "") || anon.Harness != "mcp" || anon.Caller.DisplayName != "" {
		t.Fatalf("a client with no name: %+v", anon)
	}
	odd := must(claims.NameConnection(identity.Client{Name: "Evil\x1b[2J\nTool" + strings.Repeat("é", 300), Version: "1"}, harness, "s"))
	defer odd.Release()
	if d := odd.Caller.DisplayName; !strings.HasPrefix(d, "Evil[2JTool") || len(d) > stick.MaxDisplayName || odd.Harness != "evil-2j-tool" {
		t.Fatalf("an odd client: %q %q", d, odd.Harness)
	}
}

// A data directory the claim cannot be taken in is data_dir_unusable,
// naming it.
func TestNameConnectionInAnUnusableDataDir(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(data, []byte("a file"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := identity.NewClaims(data).NameConnection(identity.Client{Name: "claude-code"}, proc(20, "claude").Identity, "")
	e := stick.AsError(err)
	if e == nil || e.Code != stick.CodeDataDir || !strings.Contains(e.Hint, data) {
		t.Fatalf("claim in a file: %v", err)
	}
}

// The harness a server serves is its parent, else (the parent is init or
// cannot be read) the server's own process, with the reason.
func TestServerHarness(t *testing.T) {
	self, parent := proc(2, "stick").Identity, proc(20, "claude").Identity
	facts := func(p procid.Identity, perr, serr error) identity.Facts {
		return identity.Facts{
			Parent: func() (procid.Identity, error) { return p, perr },
			Self:   func() (procid.Identity, error) { return self, serr },
		}
	}
	if got, err := identity.ServerHarness(facts(parent, nil, nil)); err != nil || got != parent {
		t.Fatalf("the parent: %+v %v", got, err)
	}
	if got, err := identity.ServerHarness(facts(procid.Identity{PID: 1}, nil, nil)); got != self || err == nil ||
		err.Error() != "cannot use the harness process: the parent process is init (pid 1)" {
		t.Fatalf("a parent that is init: %+v %v", got, err)
	}
	if got, err := identity.ServerHarness(facts(procid.Identity{}, errors.New("gone"), nil)); got != self || err == nil ||
		err.Error() != "cannot use the harness process: gone" {
		t.Fatalf("a parent that cannot be read: %+v %v", got, err)
	}
	if got, err := identity.ServerHarness(facts(procid.Identity{}, errors.New("gone"), errors.New("no /proc"))); !got.IsZero() || err == nil ||
		err.Error() != "cannot identify the harness process (gone) nor this one (no /proc)" {
		t.Fatalf("nothing readable: %+v %v", got, err)
	}
	real, err := procid.Parent()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := identity.ServerHarness(identity.Facts{}); err != nil || got != real {
		t.Fatalf("this process's harness: %+v %v, want %+v", got, err, real)
	}
}
