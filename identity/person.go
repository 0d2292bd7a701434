package identity

import (
	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/stick"
)

// NamePerson names the person who signed in to a hub's page as p: the
// member the page's forms act as, "human:" and the principal's handle,
// "@" and the handle again ("human:ana@ana" for the token "Ana"). It is a
// member of the principal (stick.Principal.Owns), never one of its
// agents (whose ids are a client's slug), and of kind one_shot: a person
// at a page has no process to judge, as one at a terminal has none.
//
// It fails with invalid_argument when p's name has no ASCII letter or
// digit to name a member by.
func NamePerson(p stick.Principal) (stick.Caller, error) {
	handle := p.Handle()
	if handle == "" {
		return stick.Caller{}, stick.Errorf(stick.CodeInvalidArgument, "the token name %s has no ASCII letter or digit to name its members by", stick.Quote(p.Name)).
			WithHint("make a token whose name has letters or digits: 'stick token create NAME'")
	}
	return stick.Caller{AgentID: "human:" + handle + "@" + handle, Kind: stick.KindOneShot,
		DisplayName: printable.Keep(p.Name, stick.MaxDisplayName)}, nil
}
