package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

func newToken() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Make, list and revoke the tokens a hub ('stick serve') lets agents and people in with",
		Long: `Make, list and revoke the tokens of a hub: a 'stick serve' that agents and people
on other machines reach over HTTP. Every request to the hub carries a token's
secret ("Authorization: Bearer stk_..."); the hub acts for the token's name,
with its role, in the rooms it reaches.

  viewer    reads: rooms, states, events, documents, search, export
  agent     also joins rooms and takes turns, posts notes, writes documents
  operator  also closes rooms, changes policies and member order, prunes
            rooms, and makes, lists and revokes tokens

A token's name names its members: Claude Code with the token "Alex's Team"
joins as claude-code@alex-s-team, shown as "Alex's Team (claude-code)". One
token serves a whole team; its clients, and their sessions, are told apart.

These commands act on this machine's database directly, so the first token of
a hub is made here, on the hub's host; later ones can be made over the hub by
an operator. The database keeps only a hash of each secret: a secret is shown
once, when its token is made, and never again.`,
		Example: "  stick token create \"Alex's Team\" --expires 30d\n  stick token list\n  stick token revoke \"Alex's Team\"",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTokenCreate(), newTokenList(), newTokenRevoke())
	return cmd
}

// tokenCreated is what 'stick token create --json' prints.
type tokenCreated struct {
	Token stick.Token `json:"token"`
	// Secret is the token's secret, shown this once.
	Secret string `json:"secret"`
}

func newTokenCreate() *cobra.Command {
	var asJSON bool
	var role, expires string
	var rooms, prefixes []string
	cmd := &cobra.Command{
		Use:   "create NAME [--role viewer|agent|operator] [--expires D] [--room NAME]... [--key-prefix PREFIX]...",
		Short: "Make a token and print its secret, this once",
		Long: fmt.Sprintf(`Make a token named NAME and print its secret, which is shown this once: the
database keeps only its hash. Hand the secret to whoever the token is for over
a safe channel; they give it to the hub as "Authorization: Bearer <secret>".

NAME is %s. It names the token's members (see 'stick token
--help'), so no two tokens that are not revoked may have names that name
members alike: "Alex's Team" and "alex-s team" are one name to the hub.

--role is agent by default. --expires makes the token stop working after a
while: 30d, 12h, 90m (default: never). --room and --key-prefix limit the rooms
it reaches, to the rooms of those names and the rooms whose key begins with
one of the prefixes (github.com/acme/ reaches every repository of acme on
GitHub); without either it reaches every room. A token limited to some rooms
sees nothing of the others, so two teams can share one hub.`, stick.TokenNameRule),
		Example: "  stick token create \"Alex's Team\"\n" +
			"  stick token create ci-bot --role viewer --expires 30d\n" +
			"  stick token create acme-ops --role operator --key-prefix github.com/acme/\n" +
			"  stick token create reviewers --room release-1.4-review --room triage\n" +
			"  stick token create \"Alex's Team\" --json | jq -r .secret > ~/.config/stick/hub-token",
		Args: needs(1, 1, "NAME, the name of the team or person the token is for"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			req := stick.TokenRequest{Name: args[0], Role: stick.AccessRole(role), Rooms: stick.Scope{Names: rooms, KeyPrefixes: prefixes}}
			if expires != "" {
				d, err := parseExpiry(expires)
				if err != nil {
					return err
				}
				req.ExpiresIn = d
			}
			svc, closeFn, err := openService()
			if err != nil {
				return err
			}
			defer closeFn()
			tok, secret, err := svc.CreateToken(cmd.Context(), req)
			if err != nil {
				return err
			}
			p := newPrinter(cmd.OutOrStdout(), asJSON)
			if asJSON {
				return p.JSON(tokenCreated{Token: tok, Secret: secret})
			}
			fmt.Fprintf(p.w, "created token %s %s: %s\n\n", tok.ID, strconv.Quote(render.Line(tok.Name)), tokenTerms(tok))
			fmt.Fprintf(p.w, "    %s\n\n", secret)
			fmt.Fprintf(p.w, "%s\n", p.Bold("This secret is shown this once and will not be shown again: only its hash is kept."))
			fmt.Fprintln(p.w, "Hand it over a safe channel; it goes to the hub as \"Authorization: Bearer <secret>\".")
			fmt.Fprintf(p.w, "Lost it? 'stick token revoke %s', then make another.\n", tok.ID)
			return nil
		},
	}
	addJSON(cmd, &asJSON)
	f := cmd.Flags()
	f.StringVar(&role, "role", string(stick.AccessAgent), "what the token may do: viewer (reads), agent (also takes turns and writes), operator (also manages)")
	f.StringVar(&expires, "expires", "", "stop working after this long: 30d, 12h, 90m (default: never)")
	f.StringArrayVar(&rooms, "room", nil, "reach the room of this name (repeat for more; default: every room)")
	f.StringArrayVar(&prefixes, "key-prefix", nil, "reach the rooms whose key begins so, such as github.com/acme/ (repeat for more)")
	return cmd
}

// parseExpiry reads --expires (stick.ParseExpiry): whole days (30d),
// weeks (2w), or a Go duration (12h, 90m); it must be positive.
func parseExpiry(s string) (time.Duration, error) { return stick.ParseExpiry("--expires", s) }

// tokenTerms says in words what a token may do, where and how long:
// "role agent, every room, never expires".
func tokenTerms(t stick.Token) string {
	return fmt.Sprintf("role %s, %s, %s", t.Role, render.Line(t.Rooms.String()), tokenExpiry(t))
}

// tokenExpiry is when a token expires, in words.
func tokenExpiry(t stick.Token) string {
	if t.ExpiresAt.IsZero() {
		return "never expires"
	}
	return "expires " + tokenTime(t.ExpiresAt)
}

// tokenTime is a token's time as the token commands show it: local, to the
// minute; "-" for none.
func tokenTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// roomsCell is what the token table shows of a scope: "all", or the names
// and the key prefixes, each prefix with a "*" after it.
func roomsCell(s stick.Scope) string {
	if s.All() {
		return "all"
	}
	cells := append([]string{}, s.Names...)
	for _, p := range s.KeyPrefixes {
		cells = append(cells, p+"*")
	}
	return render.Line(strings.Join(cells, ","))
}

func newTokenList() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the tokens: name, role, rooms, when made, expiring and last used, and whether they work",
		Long: `List the tokens of this machine's database, revoked and expired ones too, oldest
first. No secret is shown, nor a hash of one: a secret is shown only when its
token is made. ROOMS is "all", or the names and key prefixes (with a "*") a
token reaches. LAST USED is when a request last presented the token, to the
minute. STATE is active, expired or revoked.`,
		Example: "  stick token list\n  stick token list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			svc, closeFn, err := openService()
			if err != nil {
				return err
			}
			defer closeFn()
			toks, err := svc.ListTokens(cmd.Context())
			if err != nil {
				return err
			}
			p := newPrinter(cmd.OutOrStdout(), asJSON)
			if asJSON {
				return p.JSON(toks)
			}
			if len(toks) == 0 {
				fmt.Fprintln(p.w, "no tokens; 'stick token create NAME' makes one")
				return nil
			}
			rows := make([][]string, len(toks))
			for i, t := range toks {
				expires := tokenTime(t.ExpiresAt)
				if t.ExpiresAt.IsZero() {
					expires = "never"
				}
				last := tokenTime(t.LastUsedAt)
				if t.LastUsedAt.IsZero() {
					last = "never"
				}
				rows[i] = []string{t.ID, render.Line(t.Name), string(t.Role), roomsCell(t.Rooms), tokenTime(t.CreatedAt), expires, last, tokenState(p, t.State)}
			}
			p.table([]string{"ID", "NAME", "ROLE", "ROOMS", "CREATED", "EXPIRES", "LAST USED", "STATE"}, rows)
			return nil
		},
	}
	addJSON(cmd, &asJSON)
	return cmd
}

// tokenState is a token's state, coloured on a terminal.
func tokenState(p *printer, s stick.TokenState) string {
	if s == stick.TokenActive {
		return p.green(string(s))
	}
	return p.Dim(string(s))
}

func newTokenRevoke() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "revoke NAME|ID",
		Short: "Revoke a token for good: its secret stops working at once",
		Long: `Revoke the token of this id, else the token of this name that is not revoked:
from now on its secret authenticates nothing, and requests that present it are
refused. Revoking is for good; the token stays in 'stick token list' as
revoked, and its name is free for a new token. Revoking a revoked token
changes nothing.`,
		Example: "  stick token revoke \"Alex's Team\"\n  stick token revoke tok_1a2b3c4d5e6f7a8b",
		Args:    needs(1, 1, "NAME|ID, the name or the id of the token ('stick token list' shows them)"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, closeFn, err := openService()
			if err != nil {
				return err
			}
			defer closeFn()
			res, err := svc.RevokeToken(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			p := newPrinter(cmd.OutOrStdout(), asJSON)
			if asJSON {
				return p.JSON(res)
			}
			name := strconv.Quote(render.Line(res.Token.Name))
			if res.Already {
				fmt.Fprintf(p.w, "token %s %s was already revoked, at %s; nothing changed\n", res.Token.ID, name, tokenTime(res.Token.RevokedAt))
				return nil
			}
			fmt.Fprintf(p.w, "revoked token %s %s: its secret no longer works\n", res.Token.ID, name)
			return nil
		},
	}
	addJSON(cmd, &asJSON)
	return cmd
}
