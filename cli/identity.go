package cli

import (
	"fmt"
	"os"
	"os/user"

	"github.com/stickhq/stick/identity"
)

// AgentEnv names the environment variable that sets the CLI's identity.
const AgentEnv = "TALKING_STICK_AGENT_ID"

// harnessMarkers are environment variables harnesses set for the commands
// they run, with the harness's slug.
var harnessMarkers = []struct{ env, slug string }{
	{"CLAUDECODE", "claude-code"},
	{"CODEX_THREAD_ID", "codex"},
	{"GEMINI_CLI", "gemini"},
	{"OPENCODE", "opencode"},
}

// whoami derives the identity of this invocation and says why: the --agent
// flag, then $TALKING_STICK_AGENT_ID, then a harness marker (a command run
// by an agent's harness acts as that harness), else human:<user>.
func whoami(flag string, getenv func(string) string) (id string, why string) {
	switch {
	case flag != "":
		return flag, "from the --agent flag"
	case getenv(AgentEnv) != "":
		return getenv(AgentEnv), "from $" + AgentEnv
	}
	for _, m := range harnessMarkers {
		if getenv(m.env) == "" {
			continue
		}
		harness, _ := anchor(true)
		session := identity.SessionID(getenv)
		id := identity.AgentID(m.slug, harness.Identity, session)
		if session != "" {
			return id, fmt.Sprintf("run by %s ($%s is set), hashed with the harness process (%s, pid %d) and session %s, like its 'stick mcp'", m.slug, m.env, harness.Name, harness.PID, session)
		}
		return id, fmt.Sprintf("run by %s ($%s is set), hashed with the harness process (%s, pid %d), like its 'stick mcp'", m.slug, m.env, harness.Name, harness.PID)
	}
	name := getenv("USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if name == "" {
		name = "unknown"
	}
	return "human:" + identity.Slug(name), "a person at a terminal (user " + name + "); set --agent or $" + AgentEnv + " to choose another id"
}

// getenv is the environment lookup the commands use (replaced in tests).
var getenv = os.Getenv
