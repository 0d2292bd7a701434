package identity

import (
	"fmt"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// AgentEnv names the environment variable that chooses the identity of a
// command (as the --agent flag does).
const AgentEnv = "TALKING_STICK_AGENT_ID"

// ReclaimTokenEnv names the environment variable that proves an identity
// chosen with --agent or $TALKING_STICK_AGENT_ID: the reclaim token of the
// member it names, which acting as a member run by a program needs. It is
// an environment variable, not a flag, because other users can read a
// command line.
const ReclaimTokenEnv = "TALKING_STICK_RECLAIM_TOKEN"

// harnessMarkers are environment variables harnesses set for the commands
// they run, with the harness's slug.
var harnessMarkers = []struct{ env, slug string }{
	{"CLAUDECODE", "claude-code"},
	{"CODEX_THREAD_ID", "codex"},
	{"GEMINI_CLI", "gemini"},
	{"OPENCODE", "opencode"},
}

// Invocation is who one command run on this host acts as: an id chosen
// with --agent or $TALKING_STICK_AGENT_ID, else the id of the harness that
// runs the command (the one its 'stick mcp' derives), else human:<user>.
type Invocation struct {
	// AgentID is the identity the command acts as.
	AgentID string
	// Why says where AgentID comes from, for 'stick whoami --explain'.
	Why string
	// Chosen says --agent or $TALKING_STICK_AGENT_ID chose AgentID, so
	// package stick holds it to the reservation of members' names.
	Chosen bool
	// ReclaimToken is $TALKING_STICK_RECLAIM_TOKEN when Chosen, the proof
	// of the chosen id; "" otherwise. It is never shown.
	ReclaimToken string
	// Harness is the slug of the harness that runs the command, from the
	// marker it sets in its commands' environment ("claude-code", ...),
	// whether or not the id was chosen; "" for a person's command.
	Harness string

	facts Facts
	// walked says harness and walkErr hold the walk to the harness.
	walked  bool
	harness procid.Ancestor
	walkErr error
}

// NameInvocation names a command run with the --agent flag flag ("" when
// not given), in the environment and process tree of f. The --agent flag
// comes first, then $TALKING_STICK_AGENT_ID, then a harness marker (a
// command run by an agent's harness acts as that harness: its slug hashed
// with the harness process and session, as its 'stick mcp' does), else the
// person: human:<user>.
func NameInvocation(flag string, f Facts) Invocation {
	f = f.local()
	inv := Invocation{facts: f}
	marker := ""
	for _, m := range harnessMarkers {
		if f.Getenv(m.env) != "" {
			inv.Harness, marker = m.slug, m.env
			break
		}
	}
	if flag != "" || f.Getenv(AgentEnv) != "" {
		inv.Chosen, inv.ReclaimToken = true, f.Getenv(ReclaimTokenEnv)
	}
	switch {
	case flag != "":
		inv.AgentID, inv.Why = flag, "from the --agent flag"
		return inv
	case f.Getenv(AgentEnv) != "":
		inv.AgentID, inv.Why = f.Getenv(AgentEnv), "from $"+AgentEnv
		return inv
	case inv.Harness != "":
		inv.walk()
		harness := inv.harness
		session := SessionID(f.Getenv)
		inv.AgentID = AgentID(inv.Harness, harness.Identity, session)
		if session != "" {
			inv.Why = fmt.Sprintf("run by %s ($%s is set), hashed with the harness process (%s, pid %d) and session %s, like its 'stick mcp'", inv.Harness, marker, harness.Name, harness.PID, session)
		} else {
			inv.Why = fmt.Sprintf("run by %s ($%s is set), hashed with the harness process (%s, pid %d), like its 'stick mcp'", inv.Harness, marker, harness.Name, harness.PID)
		}
		return inv
	}
	name := f.Getenv("USER")
	if name == "" {
		name = f.User()
	}
	if name == "" {
		name = "unknown"
	}
	inv.AgentID = "human:" + Slug(name)
	inv.Why = "a person at a terminal (user " + name + "); set --agent or $" + AgentEnv + " to choose another id"
	return inv
}

// walk finds the harness that runs the command, once: the nearest
// ancestor that is neither a shell nor a wrapper.
func (inv *Invocation) walk() {
	if !inv.walked {
		inv.harness, inv.walkErr = anchor(inv.facts, true)
		inv.walked = true
	}
}

// Caller is the caller a command acts as: kind one_shot, whose process is
// never recorded. A chosen identity run by a harness carries the harness's
// process, which a member the harness's holder or 'stick mcp' joined as
// has recorded: the harness may act as its own members.
func (inv Invocation) Caller() stick.Caller {
	c := stick.Caller{AgentID: inv.AgentID, Kind: stick.KindOneShot, Chosen: inv.Chosen, ReclaimToken: inv.ReclaimToken}
	if inv.Chosen && inv.Harness != "" {
		if inv.walk(); inv.walkErr == nil {
			c.Process = inv.harness.Identity
		}
	}
	return c
}

// Anchor is the process the command belongs to, which a holder it starts
// must not outlive: the harness that runs it (the nearest ancestor that is
// neither a shell nor a wrapper), or for a person their terminal's shell
// (the leader of the session when it is an ancestor, so a subshell, a
// script or make in between does not count, else the nearest ancestor that
// is not a wrapper). Without one it fails with an internal error that says
// a holder needs a live parent.
func (inv Invocation) Anchor() (procid.Ancestor, error) {
	var anc procid.Ancestor
	var err error
	if inv.Harness != "" {
		inv.walk()
		anc, err = inv.harness, inv.walkErr
	} else {
		anc, err = anchor(inv.facts, false)
	}
	if err != nil {
		return procid.Ancestor{}, stick.Errorf(stick.CodeInternal, "cannot find the shell or harness this command runs in: %v", err).
			WithHint("run it from a shell or a harness; a holder needs a live parent to belong to (not one detached with setsid or a double fork)")
	}
	return anc, nil
}
