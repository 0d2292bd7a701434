package identity_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// A proxy names its harness's session as its local 'stick mcp' names the
// connection: the same harness and session id give the same session (a
// proxy restarted under its harness is the same member), another harness,
// session id or instance another one; the session reads back from the
// header it is sent in.
func TestProxySession(t *testing.T) {
	harness := procid.Identity{HostID: "h", BootID: "b", PID: 4242, StartedAt: time.UnixMilli(1_767_000_000_123).UTC()}
	other := harness
	other.PID++
	name := func(h procid.Identity, session string) identity.Session {
		conn, err := identity.NewClaims("").NameConnection(identity.Client{Name: "claude-code"}, h, session)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		return identity.ProxySession(conn)
	}
	s := name(harness, "")
	if s.PID != 4242 || !s.StartedAt.Equal(harness.StartedAt) || len(s.Key) != 16 {
		t.Fatalf("session: %+v", s)
	}
	if again := name(harness, ""); again != s {
		t.Fatalf("one harness named two sessions: %+v %+v", s, again)
	}
	if name(other, "") == s || name(harness, "tab-2") == s {
		t.Fatal("two harnesses, or two sessions of one, named one session")
	}
	claims := identity.NewClaims("")
	first, _ := claims.NameConnection(identity.Client{Name: "claude-code"}, harness, "")
	second, _ := claims.NameConnection(identity.Client{Name: "claude-code"}, harness, "")
	if identity.ProxySession(first) == identity.ProxySession(second) {
		t.Fatal("two live instances of one harness named one session")
	}
	back, err := identity.ParseSession(s.String())
	if err != nil || back != s {
		t.Fatalf("%s read back as %+v, %v", s, back, err)
	}
	if !strings.HasPrefix(s.String(), "4242.1767000000123.") {
		t.Fatalf("header value %s", s)
	}
}

// Only what String writes is a session; anything else is refused with
// invalid_argument on the header.
func TestParseSessionRefuses(t *testing.T) {
	for _, v := range []string{"", "abc", "1.2", "0.1767000000123.0123456789abcdef", "-1.5.0123456789abcdef",
		"01.5.0123456789abcdef", "7.0.0123456789abcdef", "7.5.0123456789ABCDEF", "7.5.0123", "7.5." + strings.Repeat("a", 65),
		"7.5.0123456789abcdef.x", "7.5.0123456789abcdeg"} {
		_, err := identity.ParseSession(v)
		if se := stick.AsError(err); err == nil || se.Code != stick.CodeInvalidArgument || se.Details["field"] != identity.SessionHeader {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// Behind a proxy, a member is named by its token, its client and its
// session: two sessions of one client and token are two members, each of
// that token; its process is on the hub's host marker, which no program
// but the hub judges, and differs between tokens for one session.
func TestNameSession(t *testing.T) {
	s1, _ := identity.ParseSession("4242.1767000000123.0123456789abcdef")
	s2, _ := identity.ParseSession("4243.1767000000123.0123456789abcdef")
	claude := identity.Client{Name: "claude-code", Version: "2.0"}
	a, err := identity.NameSession(team, claude, s1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := identity.NameSession(team, claude, s2)
	if a.AgentID == b.AgentID || !strings.HasPrefix(a.AgentID, "claude-code:") || !strings.HasSuffix(a.AgentID, "@alex-s-team") || !team.Owns(a.AgentID) {
		t.Fatalf("two sessions: %s, %s", a.AgentID, b.AgentID)
	}
	plain, _ := identity.NamePrincipal(team, claude, s1.String())
	if plain.AgentID != a.AgentID || a.Kind != stick.KindHarness || a.DisplayName != plain.DisplayName {
		t.Fatalf("NameSession is NamePrincipal with the session: %+v, %+v", a, plain)
	}
	p := a.Process
	if p.HostID != identity.HubHost() || !strings.HasPrefix(p.HostID, "hub:") || p.PID != 4242 || p.StartedAt.UnixMilli() != 1_767_000_000_123 || p.BootID == "" {
		t.Fatalf("process: %+v", p)
	}
	if st := procid.Check(p); st != procid.Unknown {
		t.Fatalf("a session's process is judged %v by this host's checks, want unknown", st)
	}
	bob := stick.Principal{TokenID: "tok_bob", Name: "Bob", Role: stick.AccessAgent}
	if identity.SessionProcess(bob, s1).Same(p) {
		t.Fatal("one session under two tokens is one process")
	}
}

// A hub names each request's caller alike on every frontend: without a
// session as NamePrincipal does, with one as NameSession does (proxied),
// and a malformed session is refused with invalid_argument on the header.
func TestNameRequest(t *testing.T) {
	claude := identity.Client{Name: "claude-code", Version: "2.0"}
	plain, proxied, err := identity.NameRequest(team, claude, "")
	want, _ := identity.NamePrincipal(team, claude, "")
	if err != nil || proxied || plain != want {
		t.Fatalf("no session: %+v, %v, %v; want %+v", plain, proxied, err, want)
	}
	const session = "4242.1767000000123.0123456789abcdef"
	got, proxied, err := identity.NameRequest(team, claude, session)
	s, _ := identity.ParseSession(session)
	want, _ = identity.NameSession(team, claude, s)
	if err != nil || !proxied || got.AgentID != want.AgentID || !got.Process.Same(want.Process) {
		t.Fatalf("a session: %+v, %v, %v; want %+v", got, proxied, err, want)
	}
	if _, proxied, err := identity.NameRequest(team, claude, "4242.x"); stick.ErrorCode(err) != stick.CodeInvalidArgument || proxied {
		t.Fatalf("a malformed session: %v", err)
	}
}
