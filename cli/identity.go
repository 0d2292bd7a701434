package cli

import (
	"fmt"
	"os"
	"os/user"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/stick"
)

// AgentEnv names the environment variable that sets the CLI's identity.
const AgentEnv = "TALKING_STICK_AGENT_ID"

// ReclaimTokenEnv names the environment variable that proves an identity
// chosen with --agent or $TALKING_STICK_AGENT_ID: the reclaim token of the
// member it names, which acting as a member run by a program needs. It is
// an environment variable, not a flag, because other users can read a
// command line.
const ReclaimTokenEnv = "TALKING_STICK_RECLAIM_TOKEN"

// oneShot returns the caller a command acts as: the identity whoami
// derives, marked as chosen (with the token of $TALKING_STICK_RECLAIM_TOKEN)
// when --agent or $TALKING_STICK_AGENT_ID chose it, so package stick holds
// it to the reservation of members' names. A chosen identity run by a
// harness carries the harness's process, which a member the harness's
// holder or 'stick mcp' joined as has recorded: the harness may act as
// its own members. A one-shot caller's process is never recorded.
func oneShot(flag string) stick.Caller {
	id, _ := whoami(flag, getenv)
	c := stick.Caller{AgentID: id, Kind: stick.KindOneShot}
	c.Chosen, c.ReclaimToken = chosenID(flag, getenv)
	if c.Chosen && harnessMarker(getenv) != "" {
		if h, err := anchor(true); err == nil {
			c.Process = h.Identity
		}
	}
	return c
}

// chosenID reports whether --agent or $TALKING_STICK_AGENT_ID chose the
// identity, and the reclaim token given with it.
func chosenID(flag string, getenv func(string) string) (bool, string) {
	if flag == "" && getenv(AgentEnv) == "" {
		return false, ""
	}
	return true, getenv(ReclaimTokenEnv)
}

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
