package identity_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// A harness runs each command through a shell and sometimes a wrapper;
// the harness itself is the nearest ancestor that is neither.
var harnessTree = []procid.Ancestor{proc(30, "sh"), proc(31, "env"), proc(32, "bash"), proc(20, "claude"), proc(10, "zsh")}

// The --agent flag wins, then $TALKING_STICK_AGENT_ID, then a harness
// marker (hashed with the harness process and session, as its 'stick mcp'
// does), else the person; each says why as 'stick whoami --explain' shows.
func TestInvocationPrecedence(t *testing.T) {
	harness := proc(20, "claude").Identity
	for _, tc := range []struct {
		name, flag string
		env        map[string]string
		user       string
		id, why    string
		chosen     bool
		slug       string
	}{
		{"flag wins", "reviewer", map[string]string{identity.AgentEnv: "env-id", "CLAUDECODE": "1"}, "", "reviewer", "from the --agent flag", true, "claude-code"},
		{"env next", "", map[string]string{identity.AgentEnv: "env-id", "CLAUDECODE": "1"}, "", "env-id", "from $TALKING_STICK_AGENT_ID", true, "claude-code"},
		{"claude code", "", map[string]string{"CLAUDECODE": "1", "USER": "ana"}, "",
			identity.AgentID("claude-code", harness, ""),
			"run by claude-code ($CLAUDECODE is set), hashed with the harness process (claude, pid 20), like its 'stick mcp'", false, "claude-code"},
		{"codex thread", "", map[string]string{"CODEX_THREAD_ID": "t-1"}, "",
			identity.AgentID("codex", harness, "t-1"),
			"run by codex ($CODEX_THREAD_ID is set), hashed with the harness process (claude, pid 20) and session t-1, like its 'stick mcp'", false, "codex"},
		{"claude code from a codex shell", "", map[string]string{"CLAUDECODE": "1", "CODEX_THREAD_ID": "thread-7"}, "",
			identity.AgentID("claude-code", harness, "thread-7"),
			"run by claude-code ($CLAUDECODE is set), hashed with the harness process (claude, pid 20) and session thread-7, like its 'stick mcp'", false, "claude-code"},
		{"gemini", "", map[string]string{"GEMINI_CLI": "1", "GEMINI_SESSION_ID": "g-1"}, "", identity.AgentID("gemini", harness, "g-1"), "run by gemini ($GEMINI_CLI is set)", false, "gemini"},
		{"opencode", "", map[string]string{"OPENCODE": "1"}, "", identity.AgentID("opencode", harness, ""), "run by opencode ($OPENCODE is set)", false, "opencode"},
		{"a person", "", map[string]string{"USER": "Ana Lopez"}, "bob", "human:ana-lopez",
			"a person at a terminal (user Ana Lopez); set --agent or $TALKING_STICK_AGENT_ID to choose another id", false, ""},
		{"a person without $USER", "", nil, "bob", "human:bob", "a person at a terminal (user bob);", false, ""},
		{"nobody known", "", nil, "", "human:unknown", "a person at a terminal (user unknown);", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &host{env: tc.env, user: tc.user, chain: harnessTree}
			inv := identity.NameInvocation(tc.flag, h.facts())
			if inv.AgentID != tc.id || !strings.HasPrefix(inv.Why, tc.why) || inv.Chosen != tc.chosen || inv.Harness != tc.slug {
				t.Fatalf("got %q (%s) chosen %v harness %q, want %q (%s) chosen %v harness %q",
					inv.AgentID, inv.Why, inv.Chosen, inv.Harness, tc.id, tc.why, tc.chosen, tc.slug)
			}
		})
	}
	a := identity.NameInvocation("", (&host{env: map[string]string{"CODEX_THREAD_ID": "t-1"}, chain: harnessTree}).facts())
	b := identity.NameInvocation("", (&host{env: map[string]string{"CODEX_THREAD_ID": "t-2"}, chain: harnessTree}).facts())
	if a.AgentID == b.AgentID {
		t.Fatal("two codex threads must get two identities")
	}
}

// A command the harness runs acts as the member its 'stick mcp' derives:
// the first instance of the connection's id for the same harness process
// and session.
func TestInvocationIsItsHarnessConnection(t *testing.T) {
	h := &host{env: map[string]string{"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s-9"}, chain: harnessTree}
	inv := identity.NameInvocation("", h.facts())
	conn, err := identity.NewClaims("").NameConnection(identity.Client{Name: "claude-code", Version: "2.0"}, proc(20, "claude").Identity, identity.SessionID(h.facts().Getenv))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if inv.AgentID != conn.Caller.AgentID {
		t.Fatalf("the command is %s, its harness's connection %s", inv.AgentID, conn.Caller.AgentID)
	}
}

// A chosen id carries its reclaim token; under a harness it carries the
// harness's process too, so the harness may act as its own members. A
// derived id carries neither, and a one-shot caller is never a harness.
func TestInvocationCaller(t *testing.T) {
	harness := proc(20, "claude").Identity
	for _, tc := range []struct {
		name    string
		flag    string
		env     map[string]string
		want    stick.Caller
		walkErr error
	}{
		{"derived under a harness", "", map[string]string{"CLAUDECODE": "1", identity.ReclaimTokenEnv: "rt_x"},
			stick.Caller{AgentID: identity.AgentID("claude-code", harness, ""), Kind: stick.KindOneShot}, nil},
		{"chosen under a harness", "claude-code:abcdef", map[string]string{"CLAUDECODE": "1", identity.ReclaimTokenEnv: "rt_x"},
			stick.Caller{AgentID: "claude-code:abcdef", Kind: stick.KindOneShot, Chosen: true, ReclaimToken: "rt_x", Process: harness}, nil},
		{"chosen by the environment at a terminal", "", map[string]string{identity.AgentEnv: "reviewer", "USER": "ana"},
			stick.Caller{AgentID: "reviewer", Kind: stick.KindOneShot, Chosen: true}, nil},
		{"a person", "", map[string]string{"USER": "ana", identity.ReclaimTokenEnv: "rt_x"},
			stick.Caller{AgentID: "human:ana", Kind: stick.KindOneShot}, nil},
		{"chosen under a harness whose process cannot be read", "x", map[string]string{"OPENCODE": "1"},
			stick.Caller{AgentID: "x", Kind: stick.KindOneShot, Chosen: true}, errors.New("no /proc")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &host{env: tc.env, chain: harnessTree, walkErr: tc.walkErr}
			if got := identity.NameInvocation(tc.flag, h.facts()).Caller(); got != tc.want {
				t.Fatalf("caller = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A harness's command hashes the harness it cannot find as a zero process,
// and says so; a holder it would start has nothing to belong to.
func TestInvocationWithoutItsHarness(t *testing.T) {
	h := &host{env: map[string]string{"CLAUDECODE": "1"}, walkErr: errors.New("parent unreadable")}
	inv := identity.NameInvocation("", h.facts())
	if inv.AgentID != identity.AgentID("claude-code", procid.Identity{}, "") || !strings.Contains(inv.Why, "(, pid 0)") {
		t.Fatalf("got %s (%s)", inv.AgentID, inv.Why)
	}
	_, err := inv.Anchor()
	e := stick.AsError(err)
	if e == nil || e.Code != stick.CodeInternal || !strings.Contains(e.Message, "parent unreadable") || !strings.Contains(e.Hint, "a holder needs a live parent") {
		t.Fatalf("anchor: %v", err)
	}
}

// The anchor of a harness's command is the harness, past shells and
// wrappers, whatever the session; a person's is their terminal's shell:
// the session leader when it is an ancestor, else the nearest ancestor
// that is not a wrapper.
func TestInvocationAnchor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    map[string]string
		chain  []procid.Ancestor
		leader int
		want   int
	}{
		{"a harness, past shells and wrappers", map[string]string{"CLAUDECODE": "1"}, harnessTree, 10, 20},
		{"a harness known by a program's file name", map[string]string{"CODEX_THREAD_ID": "t"},
			[]procid.Ancestor{proc(5, "CMD.EXE"), proc(6, "/usr/bin/NoHup.exe"), proc(7, "Codex.exe")}, 0, 7},
		{"a harness run by shells only", map[string]string{"GEMINI_CLI": "1"}, []procid.Ancestor{proc(5, "sh"), proc(6, "-bash")}, 0, 6},
		{"a person: the session leader, past a subshell and make", nil,
			[]procid.Ancestor{proc(30, "bash"), proc(31, "make"), proc(32, "bash"), proc(40, "zsh"), proc(41, "tmux")}, 40, 40},
		{"a person whose session leader is no ancestor", nil, []procid.Ancestor{proc(5, "env"), proc(6, "-bash"), proc(7, "sshd")}, 99, 6},
		{"a person with no session", nil, []procid.Ancestor{proc(5, "timeout"), proc(6, "nohup"), proc(7, "fish")}, 0, 7},
		{"a person run by wrappers only", nil, []procid.Ancestor{proc(5, "sudo"), proc(6, "xargs")}, 0, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &host{env: tc.env, chain: tc.chain, leader: tc.leader}
			anc, err := identity.NameInvocation("", h.facts()).Anchor()
			if err != nil || anc.PID != tc.want {
				t.Fatalf("anchor = %+v %v, want pid %d", anc, err, tc.want)
			}
		})
	}
	h := &host{env: map[string]string{"USER": "ana"}}
	_, err := identity.NameInvocation("", h.facts()).Anchor()
	if e := stick.AsError(err); e == nil || e.Code != stick.CodeInternal || !strings.Contains(e.Message, "no parent but init") {
		t.Fatalf("anchor with no parent but init: %v", err)
	}
}

// Naming a command reads the process tree once at most: a person's
// command not at all until a holder needs its anchor, and a harness's
// command once for its id, its caller and its anchor together.
func TestInvocationWalksOnce(t *testing.T) {
	person := &host{env: map[string]string{"USER": "ana"}, chain: harnessTree}
	identity.NameInvocation("", person.facts()).Caller()
	identity.NameInvocation("reviewer", person.facts()).Caller()
	if person.walks != 0 {
		t.Fatalf("a person's command read the process tree %d times", person.walks)
	}
	agent := &host{env: map[string]string{"CLAUDECODE": "1"}, chain: harnessTree}
	inv := identity.NameInvocation("", agent.facts())
	inv.Caller()
	if _, err := inv.Anchor(); err != nil {
		t.Fatal(err)
	}
	if agent.walks != 1 {
		t.Fatalf("a harness's command read the process tree %d times", agent.walks)
	}
}
