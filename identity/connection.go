package identity

import (
	"fmt"
	"strings"

	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// Client is what a client says of itself when it connects: the clientInfo
// of the MCP handshake ("claude-code", "1.0.3"). It names the harness, and
// only through a slug (Slug): nothing a client sends is trusted to tell
// one member from another.
type Client struct {
	Name    string
	Version string
}

// display is the client's display name, "" when it gave no name.
func (c Client) display() string {
	if c.Name == "" {
		return ""
	}
	return strings.TrimSpace(c.Name + " " + c.Version)
}

// Connection is the identity one connection holds for its life: the
// caller its calls act as, claimed so that no other live connection acts
// as the same member (see Claims) until Release.
type Connection struct {
	// Caller is who the connection's calls act as.
	Caller stick.Caller
	// Harness is the client's slug ("claude-code"), which the records of
	// the members it joins as are kept under (Records).
	Harness string
	// Instance is the connection's ordinal among the live connections that
	// derive their id from the same facts: 1, 2, ... (see InstanceID).
	Instance int
	claim    *Claim
}

// Release gives the connection's id up, so the next connection that
// derives it gets it; a second call does nothing.
func (c *Connection) Release() {
	if c.claim != nil {
		c.claim.Release()
	}
}

// NameConnection names a connection of client to a server that harness
// (the harness process, see ServerHarness) started, in the harness's
// session (SessionID, "" when it exports none): the client's slug and a
// short hash over the harness process and session (AgentID), or for the
// n-th live connection that derives the same id the n-th instance's
// (InstanceID, its display name ending in " #n"). The caller is of kind
// mcp_harness, with the harness process as its liveness. It fails with
// data_dir_unusable when the claim cannot be taken.
func (c *Claims) NameConnection(client Client, harness procid.Identity, session string) (*Connection, error) {
	name := client.Name
	if name == "" {
		name = "mcp"
	}
	claim, err := c.claim(func(n int) string { return InstanceID(name, harness, session, n) })
	if err != nil {
		return nil, err
	}
	return &Connection{Harness: Slug(name), Instance: claim.Instance, claim: claim, Caller: stick.Caller{
		AgentID:     claim.ID,
		Kind:        stick.KindHarness,
		Process:     harness,
		DisplayName: displayName(client, claim.Instance),
	}}, nil
}

// claim is Claim with its error worded for the caller of a connection.
func (c *Claims) claim(derive func(n int) string) (*Claim, error) {
	claim, err := c.Claim(derive)
	if err != nil {
		return nil, stick.Errorf(stick.CodeDataDir, "cannot claim this connection's agent id: %v", err).Wrap(err).
			WithHint("make the data directory %s writable by you", c.dataDir)
	}
	return claim, nil
}

// displayName is the display name of the n-th instance of client: its
// name and version, " #n" after it for n > 1, printable and within
// stick.MaxDisplayName.
func displayName(client Client, n int) string {
	display := client.display()
	if n > 1 && display != "" {
		display = fmt.Sprintf("%s #%d", display, n)
	}
	return printable.Keep(display, stick.MaxDisplayName)
}

// ServerHarness returns the harness a server it started serves, read from
// f: the server's parent. When the parent cannot be read, or is init (the
// harness is already gone, or the server runs as a container's first
// process), the server's own process stands in, so identities stay
// distinct and liveness stays exact; the error then says why, beside the
// process that stands in.
func ServerHarness(f Facts) (procid.Identity, error) {
	f = f.local()
	parent, err := f.Parent()
	if err == nil && parent.PID > 1 {
		return parent, nil
	}
	self, serr := f.Self()
	if serr != nil {
		return procid.Identity{}, fmt.Errorf("cannot identify the harness process (%v) nor this one (%v)", err, serr)
	}
	if err == nil {
		err = fmt.Errorf("the parent process is init (pid %d)", parent.PID)
	}
	return self, fmt.Errorf("cannot use the harness process: %v", err)
}
