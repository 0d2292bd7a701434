package stick

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/stickhq/stick/procid"
)

// Process is the exact identity of a process: host, boot, pid and start time.
type Process = procid.Identity

// Caller says who performs an operation: the agent identity the frontend
// derived, and the process whose liveness stands for it.
type Caller struct {
	// AgentID is the protocol-facing identity, for example "codex:9b22" or "human:ana".
	AgentID string
	// Kind is the session kind; a one-shot caller's process facts are never recorded.
	Kind SessionKind
	// Process identifies the process that stands for the caller; zero when unknown.
	Process Process
	// DisplayName is optional display metadata (client name, tty).
	DisplayName string
	// Chosen says the user chose AgentID (a command's --agent flag or
	// environment) instead of the frontend deriving it. A chosen id that
	// names a member who is a program (kind mcp_harness or process) acts
	// as that member only with the member's ReclaimToken or from its
	// recorded process, as an agent id override needs to join as it.
	// Members who are people (one_shot, human_guardian) stay open to it.
	Chosen bool
	// ReclaimToken proves a chosen AgentID: the reclaim token of the
	// member it names. It is never recorded, logged or shown.
	ReclaimToken string
}

// Limits on identifiers and free text.
const (
	MaxAgentIDLen  = 128
	MaxDisplayName = 256
	MaxNoteLen     = 64 << 10
	MaxReasonLen   = 4 << 10
	MaxConclusion  = 256 << 10
)

// validateAgentID checks an agent id: 1 to MaxAgentIDLen printable ASCII
// characters without spaces, so it survives logs, tables and shell arguments.
func validateAgentID(field, id string) error {
	if id == "" {
		return invalidArg(field, "%s must be non-empty", field)
	}
	if len(id) > MaxAgentIDLen {
		return invalidArg(field, "%s is %d characters; at most %d are allowed", field, len(id), MaxAgentIDLen)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return invalidArg(field, "%s %s has a character at byte %d that is not printable ASCII; use letters, digits and -_.:@/", field, Quote(id), i)
		}
	}
	return nil
}

func (c Caller) validate() error {
	if err := validateAgentID("agent_id", c.AgentID); err != nil {
		return err
	}
	if c.Kind != "" && !c.Kind.Valid() {
		return invalidArg("session_kind", "unknown session kind %s", Quote(string(c.Kind)))
	}
	if len(c.DisplayName) > MaxDisplayName || !utf8.ValidString(c.DisplayName) ||
		strings.ContainsFunc(c.DisplayName, unicode.IsControl) {
		return invalidArg("display_name", "display name must be at most %d bytes of printable UTF-8", MaxDisplayName)
	}
	return nil
}

// facts returns the process facts to record for the caller: none for one-shot callers.
func (c Caller) facts() Process {
	if c.Kind == KindOneShot {
		return Process{}
	}
	return c.Process
}

// kindAs is the session kind a member acted as by c is recorded with:
// c's, except that a member who is a program stays one when a person's
// caller (a command, a guardian) acts as it, so its name stays reserved.
func (c Caller) kindAs(m *Member) SessionKind {
	k := c.kind()
	if (k == KindOneShot || k == KindGuardian) && m.Kind != "" && !person(m) {
		return m.Kind
	}
	return k
}

func (c Caller) kind() SessionKind {
	if c.Kind == "" {
		return KindProcess
	}
	return c.Kind
}

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return fmt.Sprint(now.Sub(t).Round(time.Second))
}
