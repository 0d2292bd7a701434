package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// joinHarnessMember joins agent to the room of repo as an agent's 'stick
// mcp' does: a member run by a program, whose process is a live stand-in
// for the harness. It returns the member's reclaim token.
func joinHarnessMember(t *testing.T, repo, data, agent string) string {
	t.Helper()
	harness := testproc.Start(t, "shell", "true")
	id, err := procid.Of(harness.PID())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenDir(data, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.JoinPath(context.Background(), stick.Caller{AgentID: agent, Kind: stick.KindHarness, Process: id}, stick.JoinRequest{Path: repo})
	if err != nil || res.ReclaimToken == "" {
		t.Fatalf("join %s: %v (token %q)", agent, err, res.ReclaimToken)
	}
	return res.ReclaimToken
}

// --agent (or $TALKING_STICK_AGENT_ID) naming an agent's member does not
// make a command that member: every command that acts as it is refused
// with agent_id_in_use, and nothing changes, unless the member's reclaim
// token comes with it. People's members stay open to --agent.
func TestAgentFlagCannotActAsAHarnessMember(t *testing.T) {
	repo, data := holderRepo(t)
	const codex = "codex:9b22ce"
	mustRun(t, repo, "--agent", "human:bob", "join")
	token := joinHarnessMember(t, repo, data, codex)
	mustRun(t, repo, "--agent", "human:bob", "wait")
	mustRun(t, repo, "--agent", "human:bob", "release", "--status", "the secret handoff", "--next-action", "for codex only")
	if st := roomState(t, repo); st.State != stick.StateReserved || st.ReservedFor != codex {
		t.Fatalf("want reserved for %s: %+v", codex, st)
	}

	refused := func(what string, r binResult) {
		t.Helper()
		if r.code != 1 || !strings.HasPrefix(r.stderr, "stick: agent_id_in_use: ") || !strings.Contains(r.stderr, "reclaim token (set $"+identity.ReclaimTokenEnv+")") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant agent_id_in_use with a hint naming $%s", what, r.code, r.stderr, identity.ReclaimTokenEnv)
		}
		if strings.Contains(r.stdout+r.stderr, "secret handoff") {
			t.Errorf("%s printed the member's handoff:\n%s%s", what, r.stdout, r.stderr)
		}
	}
	for _, args := range [][]string{
		{"try"}, {"wait", "--timeout", "1s"}, {"hold", "--status", "s", "--next-action", "n"}, {"takeover", "--reason", "mine now"},
		{"join"}, {"note", "posted in codex's name"}, {"sync"}, {"doc", "append", "in codex's name"},
		{"policy", "--claim", "5m"}, {"leave"}, {"close", "--yes"},
	} {
		refused(strings.Join(args, " "), runBin(t, repo, nil, append([]string{"--agent", codex}, args...)...))
	}
	refused("$"+identity.AgentEnv+" note", runBin(t, repo, []string{identity.AgentEnv + "=" + codex}, "note", "posted in codex's name"))
	refused("note with another token", runBin(t, repo, []string{identity.ReclaimTokenEnv + "=rt_not_its_token"}, "--agent", codex, "note", "x"))
	if st := roomState(t, repo); st.State != stick.StateReserved || st.ReservedFor != codex || len(st.Members) != 2 {
		t.Fatalf("refused commands changed the room: %+v", st)
	}
	if ev := mustRun(t, repo, "events", "--json").stdout; strings.Contains(ev, "codex's name") || strings.Contains(ev, `"type":"note"`) {
		t.Fatalf("a refused note was posted:\n%s", ev)
	}

	// With the member's token, the command acts as it.
	withToken := []string{identity.ReclaimTokenEnv + "=" + token}
	r := runBin(t, repo, withToken, "--agent", codex, "try", "--json")
	var got struct{ Wait stick.WaitResult }
	w := &got.Wait
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil || w.Status != stick.YourTurn || w.Handoff == nil || w.Handoff.Status != "the secret handoff" {
		t.Fatalf("try with the token: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, token) {
		t.Fatalf("the token was printed back:\n%s%s", r.stdout, r.stderr)
	}
	if r := runBin(t, repo, withToken, "--agent", codex, "note", "with the token"); r.code != 0 {
		t.Fatalf("note with the token: exit %d %s", r.code, r.stderr)
	}
	// The member stays reserved to its token after a command acted as it.
	refused("note after a turn taken with the token", runBin(t, repo, nil, "--agent", codex, "note", "x"))
	if r := runBin(t, repo, withToken, "--agent", codex, "release", "--status", "s", "--next-action", "n"); r.code != 0 {
		t.Fatalf("release with the token: exit %d %s", r.code, r.stderr)
	}

	// People's members are unaffected.
	mustRun(t, repo, "--agent", "human:bob", "note", "bob at his terminal")
	mustRun(t, repo, "--agent", "human:carol", "join")
	mustRun(t, repo, "--agent", "human:carol", "note", "carol too")
}

// A harness acts as its own members: a command it runs with --agent carries
// the harness's process, which the member its holder joined as recorded;
// the same --agent from elsewhere is refused.
func TestHarnessActsAsItsOwnChosenMember(t *testing.T) {
	repo, _ := holderRepo(t)
	const id = "codex:own"
	script := fmt.Sprintf("cd %q && %q --agent %s wait && %q --agent %s note from the harness && %q --agent %s release --status s --next-action n",
		repo, stickBin, id, stickBin, id, stickBin, id)
	harness := testproc.StartEnv(t, []string{"CODEX_THREAD_ID=thread-9"}, "shell", "sh", "-c", script)
	var out []string
	for {
		line, err := harness.ReadLine(safety)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "exit ") {
			if line != "exit 0" {
				t.Fatalf("harness command: %s\n%s", line, strings.Join(out, "\n"))
			}
			break
		}
		out = append(out, line)
	}
	for _, m := range roomState(t, repo).Members {
		if m.AgentID == id && m.Kind != stick.KindHarness {
			t.Fatalf("%s is recorded as %s, want %s", id, m.Kind, stick.KindHarness)
		}
	}
	r := runBin(t, repo, nil, "--agent", id, "note", "from elsewhere")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "stick: agent_id_in_use: ") {
		t.Fatalf("--agent %s outside its harness: exit %d %s", id, r.code, r.stderr)
	}
}
