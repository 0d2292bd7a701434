package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"github.com/stickhq/stick/wake"
)

// tokenEnv is where 'stick mcp --server' takes its token from when no
// --token-file is given.
const tokenEnv = "STICK_TOKEN"

func newMCP(version string) *cobra.Command {
	var tools, hub, tokenFile, token string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the stick tools over MCP on stdin/stdout (started by a coding-agent harness)",
		Long: `Serve the stick tools over the Model Context Protocol on stdin and stdout.

A harness (Claude Code, Codex, Gemini CLI, OpenCode, ...) starts one 'stick mcp'
per session; all of them share one database. The agent's identity is derived from
the harness's client name and process, and the member is seen as gone when the
harness process exits.

--tools core offers only the tools taking turns needs, a smaller tool list for
the model to read, for harnesses that only take turns ('stick install --tools
core' registers it):
  ` + strings.Join(mcpserver.CoreToolNames(), ", ") + `

--server URL makes it a proxy for a hub on another host ('stick serve'): it
offers the same tools and forwards every call to the hub, and holds a
liveness stream to it, so the room sees this harness's member gone as soon
as the harness exits. The token is read from --token-file PATH, else from
$` + tokenEnv + `; never from the command line, where every user of the host sees
it ('stick install --server URL' registers it).`,
		Example: mcpRegistrations + "\n  STICK_TOKEN=... stick mcp --server https://stick.example.com   # a proxy for a hub",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("token") {
				return tokenOnCommandLine()
			}
			set, err := mcpserver.ParseToolSet(tools)
			if err != nil {
				return fmt.Errorf("--tools: %v", err)
			}
			if hub != "" {
				return serveProxy(cmd, version, hub, tokenFile, set)
			}
			if tokenFile != "" {
				return fmt.Errorf("--token-file goes with --server URL: a local 'stick mcp' needs no token")
			}
			// Starting makes a few MB of short-lived garbage (the SDK
			// decodes every tool schema) and little else that lives: the
			// garbage collector waits until the first answer is written
			// (or the command ends), instead of delaying it.
			gcPercent := debug.SetGCPercent(-1)
			collect := sync.OnceFunc(func() { debug.SetGCPercent(gcPercent) })
			defer collect()
			// The database opens in the background once the client has
			// initialized its session (or at the first tool call, whichever
			// comes first), so initialize is answered without it; the first
			// tool call waits for it, and fails with the open's coded error
			// if it failed.
			st := wiring().OpenLater(cmd.ErrOrStderr())
			defer st.Close()
			svc, err := newService(st)
			if err != nil {
				return err
			}
			harness, err := identity.ServerHarness(identity.Facts{})
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "stick mcp: %v; this server's own process stands for the harness\n", err)
			}
			// On a database server, this server's connection proves the
			// harness alive to the other hosts while it runs, and gone
			// the moment it dies (see storeurl.Later.Hold).
			if h, ok := st.(processMarker); ok && !harness.IsZero() {
				h.Hold(harness, func(err error) { fmt.Fprintf(cmd.ErrOrStderr(), "stick mcp: %v\n", err) })
			}
			// A data directory that cannot be resolved is the open's to
			// report; identities are then claimed within this process.
			dataDir, _ := store.DataDir()
			srv, err := mcpserver.New(mcpserver.Config{Service: svc, Harness: harness, DataDir: dataDir, Getenv: os.Getenv, Version: version, Tools: set, Ready: st.Ready, Initialized: st.Start,
				Wake: wake.FromEnv(os.Getenv), Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			return serveFailure(srv.Run(cmd.Context(), &mcpserver.StdioTransport{Answered: collect}))
		},
	}
	f := cmd.Flags()
	f.StringVar(&tools, "tools", string(mcpserver.AllTools), "the tools to offer: all, or core for taking turns only")
	f.StringVar(&hub, "server", "", "forward every call to the hub at this URL ('stick serve' on another host)")
	f.StringVar(&tokenFile, "token-file", "", "with --server: the file that holds the hub's token (default: $"+tokenEnv+")")
	// --token is refused, not unknown: its value would be on the command
	// line, which every user of the host reads ('ps').
	f.StringVar(&token, "token", "", "refused: give the token in a file or $"+tokenEnv)
	_ = f.MarkHidden("token")
	return cmd
}

// processMarker is a LaterStore on a database server, which can mark the
// process a long-lived command stands for (storeurl.Later).
type processMarker interface {
	Hold(p stick.Process, report func(error))
}

// tokenOnCommandLine is the refusal of a --token flag.
func tokenOnCommandLine() error {
	return stick.Errorf(stick.CodeInvalidArgument, "stick mcp takes no --token: a token on the command line is seen by every user of this host ('ps'), and kept in the harness's settings").
		With("field", "token").
		WithHint("put the token in a file only you can read and pass --token-file PATH, or set $%s in the harness's environment", tokenEnv)
}

// openReporting opens the default database and, when it cannot, tells
// the harness's log why on w: 'stick mcp' goes on serving, and every tool
// call answers with this error until the cause is fixed and the harness's
// session restarted.
func openReporting(w io.Writer) (*store.Store, error) {
	st, err := store.OpenDefault()
	return reported(w, st, err)
}

// reported passes a store's open on, telling the harness's log on w why
// it failed, as openReporting does.
func reported[S any](w io.Writer, st S, err error) (S, error) {
	if err != nil {
		printError(w, stick.AsError(err))
		fmt.Fprintln(w, "stick mcp: every tool call fails with this error until it is fixed; then restart the harness's session")
	}
	return st, err
}

// serveFailure is the error 'stick mcp' ends with when serving failed: a
// broken stdin or stdout, never a usage error (a malformed message is
// answered and the server goes on), so it exits 1 and says what broke.
func serveFailure(err error) error {
	var se *stick.Error
	if err == nil || errors.As(err, &se) {
		return err
	}
	return &failure{code: 1, msg: fmt.Sprintf("mcp: serving over stdin and stdout failed: %v", err),
		hint: "the harness that started 'stick mcp' talks to it over stdin and stdout; restart its session to reconnect"}
}

// mcpRegistrations is how each harness registers 'stick mcp' by hand, the
// same lines the README gives ('stick install' runs them for you).
const mcpRegistrations = `  stick install --all                                  # or by hand, one per harness:
  claude mcp add --scope user stick -- stick mcp       # Claude Code
  codex mcp add stick -- stick mcp                     # Codex
  gemini mcp add --scope user stick stick mcp          # Gemini CLI
  stick install opencode                               # OpenCode (merges into ~/.config/opencode/opencode.json)
  stick install antigravity                            # Antigravity (merges into ~/.gemini/config/mcp_config.json)
  grok mcp add stick -- stick mcp                      # Grok Build`
