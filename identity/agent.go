package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// sessionEnv lists environment variables in which harnesses export a
// session or thread id; the first one set refines the identity hash, so two
// sessions of one harness process get different ids.
var sessionEnv = []string{"CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID", "OPENCODE_SESSION_ID"}

// Slug turns an MCP clientInfo.name into the harness part of an agent id:
// lower case, runs of other characters as one dash, and the generic suffixes
// harnesses add ("-mcp-client", "-client", "-cli") removed, so
// "codex-mcp-client" becomes "codex" and "gemini-cli-mcp-client" "gemini".
// The process name is never used: a harness started as "node …/gemini" is
// known by its client name.
func Slug(clientName string) string {
	s := stick.Slugify(clientName)
	for changed := true; changed; {
		changed = false
		for _, suffix := range []string{"-mcp-client", "-client", "-mcp", "-cli"} {
			if t := strings.TrimSuffix(s, suffix); t != s && t != "" {
				s, changed = t, true
			}
		}
	}
	if s = short(s); s == "" {
		return "mcp"
	}
	return s
}

// short cuts a slug to 32 bytes, with no dash at its end.
func short(s string) string {
	if len(s) > 32 {
		s = strings.TrimSuffix(s[:32], "-")
	}
	return s
}

// AgentID derives a connection's identity: the client's slug and a short
// hash over the harness process (host, boot, pid, start time) and, when the
// harness exports one, its session id. Reconnects of the same harness
// instance get the same id; two harness instances get different ones. It is
// instance 1 of InstanceID, the id a command the harness runs derives too.
func AgentID(clientName string, harness procid.Identity, sessionID string) string {
	return InstanceID(clientName, harness, sessionID, 1)
}

// InstanceID is the agent id of the n-th live connection (n ≥ 1) that
// derives its identity from the same client name, harness process and
// session: instance 1 is AgentID, and instance n > 1 also hashes n, so a
// second server a harness runs at the same time (one per chat tab, say)
// is a member of its own. See Claims.
func InstanceID(clientName string, harness procid.Identity, sessionID string, n int) string {
	h := sha256.New()
	parts := []string{
		harness.HostID, harness.BootID, strconv.Itoa(harness.PID),
		strconv.FormatInt(harness.StartedAt.UnixMilli(), 10), sessionID,
	}
	if n > 1 {
		parts = append(parts, "instance "+strconv.Itoa(n))
	}
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return Slug(clientName) + ":" + hex.EncodeToString(h.Sum(nil))[:6]
}

// SessionID returns the first harness session id found through getenv, and
// is what both 'stick mcp' and a command the harness runs hash, so the two
// derive the same agent id.
func SessionID(getenv func(string) string) string {
	for _, k := range sessionEnv {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return ""
}
