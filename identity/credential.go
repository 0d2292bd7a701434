package identity

import (
	"strconv"

	"github.com/stickhq/stick/stick"
)

// Role is what a token stands for: an agent's harness or a person.
type Role string

// The roles of a token.
const (
	// RoleAgent is a token an agent's harness connects with.
	RoleAgent Role = "agent"
	// RoleHuman is a token a person connects with (a page, curl).
	RoleHuman Role = "human"
)

// Credential is what an authenticated connection proved about its caller:
// the name and role of the token it presented, as the server's token store
// holds them once the token is verified. A server builds it from its
// verifier's answer, never from a request's fields, which a caller writes
// as it likes: the identity of a caller on another host comes from what it
// proved, as a local caller's comes from its process.
type Credential struct {
	// Token is the token's name, chosen when it was made ("ana-laptop").
	Token string
	// Role is the token's role.
	Role Role
}

// NameCredential names a connection of client authenticated by cred.
//
// An agent's token names a member per client: the client's slug, "@" and
// the token name's slug ("claude-code@ana-laptop"), so Claude Code and
// Codex connecting with one token are two members, and no id derived on a
// host (slugs and hex, no "@") can be named by a token. The n-th live
// connection of one client with one token is the n-th instance, with ".n"
// after the id and " #n" after its display name, as NameConnection does
// for two servers of one harness. Its caller is of kind mcp_harness, with
// no process: it is judged by timeouts.
//
// A person's token names the person, human:<token name's slug>, as a
// person at a terminal is human:<user>: one member however many
// connections they open, each of kind one_shot, unclaimed.
//
// It fails with invalid_argument for a role it does not know or a token
// name with no letter or digit, and with data_dir_unusable when the claim
// cannot be taken.
func (c *Claims) NameCredential(cred Credential, client Client) (*Connection, error) {
	token := short(words(cred.Token))
	if token == "" {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "the token name %q has no letter or digit to name its caller by", cred.Token).
			WithHint("give the token a name of letters and digits")
	}
	harness := Slug(client.Name)
	switch cred.Role {
	case RoleHuman:
		return &Connection{Harness: harness, Instance: 1, Caller: stick.Caller{
			AgentID:     "human:" + token,
			Kind:        stick.KindOneShot,
			DisplayName: displayName(client, 1),
		}}, nil
	case RoleAgent:
		base := harness + "@" + token
		claim, err := c.claim(func(n int) string {
			if n > 1 {
				return base + "." + strconv.Itoa(n)
			}
			return base
		})
		if err != nil {
			return nil, err
		}
		return &Connection{Harness: harness, Instance: claim.Instance, claim: claim, Caller: stick.Caller{
			AgentID:     claim.ID,
			Kind:        stick.KindHarness,
			DisplayName: displayName(client, claim.Instance),
		}}, nil
	}
	return nil, stick.Errorf(stick.CodeInvalidArgument, "the token role %q is neither %q nor %q", cred.Role, RoleAgent, RoleHuman).
		WithHint("give the token the role %s or %s", RoleAgent, RoleHuman)
}
