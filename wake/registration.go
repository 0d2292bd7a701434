package wake

import (
	"encoding/json"
	"fmt"
)

// Transport names a way to wake a session.
type Transport string

const (
	// ClaudeInbox is Claude Code's per-session inbox socket: a Unix socket
	// that takes an auth line with the session's token and a user message.
	ClaudeInbox Transport = "claude-inbox"
	// CodexQueue is `codex queue --thread <id> --message <text>`, which
	// queues a message for a Codex thread.
	CodexQueue Transport = "codex-queue"
)

// The environment variables a harness exports to the processes it runs,
// naming the session those processes belong to.
const (
	envClaudeSocket = "CLAUDE_CODE_MESSAGING_SOCKET"
	envClaudeToken  = "CLAUDE_CODE_MESSAGING_TOKEN"
	envCodexThread  = "CODEX_THREAD_ID"
)

// Registration is how one harness session is woken: a transport and a
// non-secret address (the inbox socket's path, the Codex thread id), and
// for the inbox the session's token. The token is never shown: String,
// GoString, MarshalJSON and every fmt verb reveal only the transport, the
// address and whether a token is held. The token is kept in a closure,
// which reflection cannot look into, so even a Registration printed field
// by field (as an unexported field of another value, or by a reflective
// dumper) shows a function's address, not the token. For the same reason
// registrations are not comparable with ==, and cannot be read back from
// JSON.
type Registration struct {
	// Transport is the way to wake the session.
	Transport Transport
	// Address is the inbox socket's path or the Codex thread id.
	Address string
	secret  func() string
}

// NewClaudeInbox returns the registration of a Claude Code session's inbox:
// the socket's path and the session's token.
func NewClaudeInbox(socket, token string) Registration {
	return Registration{Transport: ClaudeInbox, Address: socket, secret: func() string { return token }}
}

// NewCodexQueue returns the registration of a Codex thread, woken with
// `codex queue`.
func NewCodexQueue(thread string) Registration {
	return Registration{Transport: CodexQueue, Address: thread}
}

// FromEnv returns the registrations a harness exported to this process,
// read with getenv (os.Getenv, or a map's lookup in tests): Claude Code's
// inbox when both CLAUDE_CODE_MESSAGING_SOCKET and
// CLAUDE_CODE_MESSAGING_TOKEN are set (the inbox refuses a connection that
// does not authenticate), then the Codex thread in CODEX_THREAD_ID. It
// returns none when neither is set.
func FromEnv(getenv func(string) string) []Registration {
	var regs []Registration
	if socket, token := getenv(envClaudeSocket), getenv(envClaudeToken); socket != "" && token != "" {
		regs = append(regs, NewClaudeInbox(socket, token))
	}
	if thread := getenv(envCodexThread); thread != "" {
		regs = append(regs, NewCodexQueue(thread))
	}
	return regs
}

// Secret reports whether the registration holds a secret (an inbox token),
// so a display can say "token set"; it never returns the secret.
func (r Registration) Secret() bool { return r.token() != "" }

// token returns the inbox token, or "" when none is held.
func (r Registration) token() string {
	if r.secret == nil {
		return ""
	}
	return r.secret()
}

// String describes the registration for people: the transport, the address
// and whether a token is set, never the token.
func (r Registration) String() string {
	s := string(r.Transport) + " " + clean(r.Address)
	if r.Secret() {
		s += " (token set)"
	}
	return s
}

// GoString is what %#v prints: the transport and the address as Go
// syntax, with a comment in place of the token.
func (r Registration) GoString() string {
	s := fmt.Sprintf("wake.Registration{Transport:%q, Address:%q", string(r.Transport), r.Address)
	if r.Secret() {
		s += " /* token set */"
	}
	return s + "}"
}

// MarshalJSON encodes the transport, the address and whether a token is
// set, never the token.
func (r Registration) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Transport Transport `json:"transport"`
		Address   string    `json:"address"`
		TokenSet  bool      `json:"token_set,omitempty"`
	}{r.Transport, r.Address, r.Secret()})
}

// Names returns the transports of regs, in order: what a room records of
// how a session is woken, never a secret.
func Names(regs []Registration) []string {
	names := make([]string, len(regs))
	for i, r := range regs {
		names[i] = string(r.Transport)
	}
	return names
}
