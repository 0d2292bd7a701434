package identity

import (
	"testing"

	"github.com/stickhq/stick/stick"
)

func TestNamePerson(t *testing.T) {
	p := stick.Principal{Name: "Ana's Laptop", Role: stick.AccessOperator}
	c, err := NamePerson(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.AgentID != "human:ana-s-laptop@ana-s-laptop" || c.Kind != stick.KindOneShot || c.DisplayName != "Ana's Laptop" {
		t.Fatalf("NamePerson = %+v", c)
	}
	if !p.Owns(c.AgentID) {
		t.Fatalf("%s is not a member of its own principal", c.AgentID)
	}
	agent, err := NamePrincipal(p, Client{Name: "claude-code"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if agent.AgentID == c.AgentID {
		t.Fatalf("the person and the agent share %s", c.AgentID)
	}
	if _, err := NamePerson(stick.Principal{Name: "???"}); stick.ErrorCode(err) != stick.CodeInvalidArgument {
		t.Fatalf("a name with no letter: %v", err)
	}
}
