package demo

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

func TestAgentArgsRoundTrip(t *testing.T) {
	for _, want := range []agentConfig{
		{name: "demo:alice", workspace: "/w s", roster: roster, lastTurn: 10, open: true},
		{name: "demo:bob", workspace: "/w", roster: roster, lastTurn: 10, stopOn: 2},
	} {
		args := want.args()
		if !reflect.DeepEqual(args[:len(agentCommand)], agentCommand) {
			t.Fatalf("args %q do not start with %q", args, agentCommand)
		}
		got, err := parseAgentArgs(args[len(agentCommand):])
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("parse(%q) = %+v, %v; want %+v", args, got, err, want)
		}
	}
	for _, bad := range [][]string{nil, {"--workspace", "/w"}, {"demo:x"}, {"demo:x", "--workspace", "/w", "--roster", "a", "--last-turn", "10", "extra"}} {
		if _, err := parseAgentArgs(bad); stick.ErrorCode(err) != stick.CodeInvalidArgument {
			t.Fatalf("parse(%q): %v, want invalid_argument", bad, err)
		}
	}
}

// The critical-section file admits one holder at a time, and a member that
// took over clears only the file of the holder it revoked.
func TestCriticalSectionFile(t *testing.T) {
	ws := workspace(t.TempDir())
	if err := ws.enter("demo:bob", 5); err != nil {
		t.Fatal(err)
	}
	if err := ws.enter("demo:carol", 6); err == nil || !strings.Contains(err.Error(), "demo:bob turn 5") {
		t.Fatalf("a second holder must collide with the first: %v", err)
	}
	if _, err := ws.clearStale("demo:alice", 5); err == nil {
		t.Fatal("clearing another holder's file must fail")
	}
	if got, err := ws.clearStale("demo:bob", 5); err != nil || got != "demo:bob turn 5" {
		t.Fatalf("clearStale: %q %v", got, err)
	}
	if err := ws.enter("demo:carol", 6); err != nil {
		t.Fatal(err)
	}
	if err := ws.exit("demo:alice", 6); err == nil {
		t.Fatal("exit must check the file is the caller's")
	}
	if err := ws.exit("demo:carol", 6); err != nil {
		t.Fatal(err)
	}
}

// A handoff is checked against the lines it points at.
func TestHandoffCheck(t *testing.T) {
	ws := workspace(t.TempDir())
	if err := ws.appendLine("1. demo:alice wrote this in turn 1"); err != nil {
		t.Fatal(err)
	}
	h := handoff(1, 1, nil, false)
	if got, problem := ws.check(h, "demo:alice"); problem != "" || got != "1. demo:alice wrote this in turn 1" {
		t.Fatalf("check: %q %q", got, problem)
	}
	if _, problem := ws.check(h, "demo:bob"); problem == "" {
		t.Fatal("a line by someone else must not pass as the author's")
	}
	if _, problem := ws.check(handoff(2, 2, nil, false), "demo:alice"); problem == "" {
		t.Fatal("a handoff pointing past the end of the file must not pass")
	}
	if err := h.Validate(); err != nil {
		t.Fatalf("the demo's handoff must be valid: %v", err)
	}
}
