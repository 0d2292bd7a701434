package identity_test

import (
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
)

func TestAgentID(t *testing.T) {
	for name, want := range map[string]string{
		"claude-code": "claude-code", "codex-mcp-client": "codex", "gemini-cli-mcp-client": "gemini",
		"Gemini CLI": "gemini", "opencode": "opencode", "": "mcp", "  !!  ": "mcp", "My Tool/2": "my-tool-2",
	} {
		if got := identity.Slug(name); got != want {
			t.Errorf("Slug(%q) = %q, want %q", name, got, want)
		}
	}
	harness, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	id := identity.AgentID("codex-mcp-client", harness, "")
	if id != identity.AgentID("codex-mcp-client", harness, "") || !strings.HasPrefix(id, "codex:") || len(id) != len("codex:")+6 {
		t.Fatalf("reconnects of one harness must get one id: %s", id)
	}
	other := harness
	other.PID++
	if identity.AgentID("codex-mcp-client", other, "") == id || identity.AgentID("codex-mcp-client", harness, "thread-2") == id {
		t.Fatal("two harness instances (or sessions) must get different ids")
	}
	if identity.InstanceID("codex-mcp-client", harness, "", 1) != id {
		t.Fatal("instance 1 is the id AgentID derives")
	}
	second := identity.InstanceID("codex-mcp-client", harness, "", 2)
	if second == id || !strings.HasPrefix(second, "codex:") || second == identity.InstanceID("codex-mcp-client", harness, "", 3) {
		t.Fatalf("instances get ids of their own: %s", second)
	}
}
