package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// SessionHeader is the HTTP header in which a proxy ('stick mcp --server')
// names the session of its harness on every request to a hub: its calls
// to the hub's MCP endpoint and its liveness stream.
const SessionHeader = "X-Stick-Session"

// Session is how a proxy names its harness to a hub: the harness
// process's pid and start time on the proxy's host, and a key that tells
// it from every other harness. The hub folds the session into the member
// id (NamePrincipal's session), so each harness session behind a proxy
// is a member of its own, as each harness session is with a local 'stick
// mcp'; and it makes of it the process it records for the member
// (SessionProcess), which its liveness judges by the proxy's stream.
//
// A session proves nothing: it only picks among the members of the token
// it comes with, as a client's name does.
type Session struct {
	// PID and StartedAt are the harness process's, on its host.
	PID       int
	StartedAt time.Time
	// Key is 16 to 64 lower-case hex digits.
	Key string
}

// ProxySession returns the session of the connection conn names, which a
// proxy named as a local 'stick mcp' names its connection
// (Claims.NameConnection: the client, the harness process and its
// session id, and the instance among the live connections of that
// harness). The key is a hash of that agent id and the harness's facts,
// so a proxy restarted under the same harness names the same session,
// and two harness sessions, or two instances, name two.
func ProxySession(conn *Connection) Session {
	h := conn.Caller.Process
	sum := sha256.New()
	for _, part := range []string{conn.Caller.AgentID, h.HostID, h.BootID, strconv.Itoa(h.PID), strconv.FormatInt(h.StartedAt.UnixMilli(), 10)} {
		sum.Write([]byte(part))
		sum.Write([]byte{0})
	}
	return Session{PID: h.PID, StartedAt: h.StartedAt, Key: hex.EncodeToString(sum.Sum(nil))[:16]}
}

// String is the session as SessionHeader carries it: "<pid>.<start in
// Unix milliseconds>.<key>".
func (s Session) String() string {
	return strconv.Itoa(s.PID) + "." + strconv.FormatInt(s.StartedAt.UnixMilli(), 10) + "." + s.Key
}

// ParseSession reads a session as String writes it. It fails with
// invalid_argument, naming SessionHeader, on anything else.
func ParseSession(v string) (Session, error) {
	bad := func() (Session, error) {
		return Session{}, stick.Errorf(stick.CodeInvalidArgument, "the %s header %s is not a session of 'stick mcp --server'", SessionHeader, stick.Quote(v)).
			With("field", SessionHeader).
			WithHint("leave the header out (it is for 'stick mcp --server'), or send <pid>.<start ms>.<16 to 64 hex digits>")
	}
	parts := strings.Split(v, ".")
	if len(v) > 128 || len(parts) != 3 {
		return bad()
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != parts[0] {
		return bad()
	}
	ms, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || ms <= 0 || strconv.FormatInt(ms, 10) != parts[1] {
		return bad()
	}
	key := parts[2]
	if len(key) < 16 || len(key) > 64 || strings.Trim(key, "0123456789abcdef") != "" {
		return bad()
	}
	return Session{PID: pid, StartedAt: time.UnixMilli(ms).UTC(), Key: key}, nil
}

// NameSession names a caller of a hub that authenticated it as p, using
// client, behind a proxy in session s: NamePrincipal with the session,
// and, as the process its liveness stands on, SessionProcess. It fails as
// NamePrincipal does.
func NameSession(p stick.Principal, client Client, s Session) (stick.Caller, error) {
	c, err := NamePrincipal(p, client, s.String())
	if err != nil {
		return stick.Caller{}, err
	}
	c.Process = SessionProcess(p, s)
	return c, nil
}

// NameRequest names the caller of one request to a hub that authenticated
// it as p, from client, in session: the value of SessionHeader, "" when
// the request has none. Without a session it is NamePrincipal's caller;
// with one, NameSession's, and proxied is set: the member stands behind
// a proxy, whose liveness stream the hub judges its process by. Every
// frontend of a hub (MCP over HTTP, the JSON API) names its callers
// through it, so a proxy's requests to either act as one member.
//
// The session is no proof: whoever holds p's token may name any session,
// and so act as any member of that token, never as one of another token.
// A malformed session is invalid_argument, as are the failures of
// NamePrincipal.
func NameRequest(p stick.Principal, client Client, session string) (c stick.Caller, proxied bool, err error) {
	if session == "" {
		c, err = NamePrincipal(p, client, "")
		return c, false, err
	}
	s, err := ParseSession(session)
	if err != nil {
		return stick.Caller{}, false, err
	}
	c, err = NameSession(p, client, s)
	return c, err == nil, err
}

// SessionProcess is the process a hub records for a member behind a proxy
// in session s with p's token: on HubHost, so that every program but the
// hub judges it as a process of another host (Unknown, by timeouts); its
// boot a hash of the token's id and the session, so that no token names
// another's session; its pid and start time the harness's.
func SessionProcess(p stick.Principal, s Session) procid.Identity {
	sum := sha256.Sum256([]byte(p.TokenID + "\x00" + s.String()))
	return procid.Identity{HostID: HubHost(), BootID: hex.EncodeToString(sum[:16]), PID: s.PID, StartedAt: s.StartedAt}
}

// HubHost is the host of the processes a hub on this host records for the
// members behind proxies: "hub:" and this host's id. Only the hub's
// liveness, which knows their streams, judges them.
func HubHost() string { return hubHost() }

var hubHost = sync.OnceValue(func() string {
	host, _, _ := procid.Host()
	if host == "" {
		host = "unknown"
	}
	return "hub:" + host
})
