package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	skill "github.com/stickhq/stick"
	"github.com/stickhq/stick/cli/harness"
	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/stick"
)

// executable returns the path of the running binary (replaced in tests).
var executable = os.Executable

// harnessOp is one of install, uninstall, install-skill and uninstall-skill:
// what it does to one harness.
type harnessOp struct {
	use, short, long, example string
	// needsCommand: the operation registers a command, so it resolves the
	// stick binary and takes --command.
	needsCommand bool
	do           func(ctx context.Context, h *harness.Harness, opts harness.Options) harness.Result
	// guard, when set, also installs or removes Claude Code's stop guard
	// after do, given do's result: false when there is nothing to do.
	guard func(h *harness.Harness, opts harness.Options, done harness.Result) (harness.Result, bool)
}

func newInstall() *cobra.Command {
	return harnessCommand(harnessOp{
		use:   "install [claude-code|codex|gemini|opencode|antigravity|grok ...] [--all]",
		short: "Register 'stick mcp' with your coding-agent harnesses",
		long: `Register 'stick mcp' as the MCP server "stick" with each named harness, or with
every harness installed on this machine (--all), the way that harness expects:

  claude-code  claude mcp add --scope user stick -- STICK mcp
  codex        codex mcp add stick -- STICK mcp
  gemini       gemini mcp add --scope user stick STICK mcp
  opencode     merged into ~/.config/opencode/opencode.json (or opencode.jsonc):
               "mcp": {"stick": {"type": "local", "command": ["STICK", "mcp"], "enabled": true}}
               keeping every other key, comment and byte of the file
  antigravity  merged into ~/.gemini/config/mcp_config.json (shared by agy, the IDE
               and the app): "mcpServers": {"stick": {"command": "STICK", "args": ["mcp"]}}
               keeping every other key, comment and byte of the file
  grok         grok mcp add stick -- STICK mcp  (Grok Build; read back from
               ~/.grok/config.toml)

For Claude Code it also merges the stop guard into ~/.claude/settings.json
($CLAUDE_CONFIG_DIR/settings.json when set), keeping every other key and hook:
  "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "STICK hook stop"}]}]}
a Stop hook that keeps the session from ending its turn while it holds the
stick (or has it reserved) until it releases or passes it with a handoff; it
blocks once, never twice in a row, and lets the stop through when it cannot
read the state. --no-guard leaves it out; it is not added with --server.

STICK is the absolute path of the stick on your PATH, else of this binary
(--command overrides it). --tools core registers 'STICK mcp --tools=core': the
smaller tool set, for harnesses that only take turns. Running install again
changes nothing; a "stick" server registered with another command is replaced. A harness counts as
installed when its binary is on PATH (for OpenCode and Antigravity, also when
its config directory, ~/.config/opencode or ~/.gemini/config, exists); for any
other nothing is created.

--server URL registers 'STICK mcp --server=URL' instead, the proxy for a hub
('stick serve') on another host: agents of this machine then take turns in the
hub's rooms. The proxy reads the hub's token from --token-file PATH (registered
as --token-file=PATH; keep the file yours alone), else from $STICK_TOKEN in the
harness's environment. 'stick uninstall' removes it as it removes the local
server.

With --database URL (or $STICK_DATABASE_URL) it registers
'STICK mcp --database=URL': the server on that PostgreSQL database. The URL
must not hold a password (it would sit in the harness's configuration): keep
the password in ~/.pgpass or $PGPASSWORD.`,
		example: "  stick install --all\n  stick install claude-code codex --dry-run\n" +
			"  stick install opencode --command /usr/local/bin/stick --json\n  stick install codex --tools core\n" +
			"  stick install --all --server https://stick.example.com --token-file ~/.config/stick/token\n" +
			"  stick install --all --database postgres://stick@db.example.com/stick",
		needsCommand: true,
		do: func(ctx context.Context, h *harness.Harness, opts harness.Options) harness.Result {
			return h.Install(ctx, opts)
		},
		guard: func(h *harness.Harness, opts harness.Options, done harness.Result) (harness.Result, bool) {
			if opts.NoGuard || !h.HasGuard() || opts.Server != "" || done.Failed() || done.Status == harness.StatusSkipped {
				return harness.Result{}, false
			}
			return h.InstallGuard(opts), true
		},
	})
}

func newUninstall() *cobra.Command {
	return harnessCommand(harnessOp{
		use:   "uninstall [claude-code|codex|gemini|opencode|antigravity|grok ...] [--all]",
		short: "Remove the 'stick' MCP server from your coding-agent harnesses",
		long: `Remove the MCP server "stick" from each named harness, or from every harness
installed on this machine (--all): with 'claude mcp remove --scope user stick',
'codex mcp remove stick', 'gemini mcp remove --scope user stick' and
'grok mcp remove stick', and for OpenCode and Antigravity by deleting the
"stick" entry (and an "mcp" or "mcpServers" object it leaves empty) from the
config file, keeping every other byte; a config file that install created from
nothing is removed, with the directories install made for it. For Claude Code
it also removes the stop guard from ~/.claude/settings.json: the Stop hook
entry running 'stick hook stop', and the "Stop" array and "hooks" object it
leaves empty.`,
		example: "  stick uninstall --all\n  stick uninstall opencode --dry-run",
		do: func(ctx context.Context, h *harness.Harness, opts harness.Options) harness.Result {
			return h.Uninstall(ctx, opts)
		},
		guard: func(h *harness.Harness, opts harness.Options, done harness.Result) (harness.Result, bool) {
			if !h.HasGuard() || done.Status == harness.StatusSkipped {
				return harness.Result{}, false
			}
			r := h.UninstallGuard(opts)
			return r, r.Status != harness.StatusNotInstalled
		},
	})
}

func newInstallSkill() *cobra.Command {
	return harnessCommand(harnessOp{
		use:   "install-skill [claude-code|codex|gemini|opencode|antigravity|grok ...] [--all]",
		short: "Install the stick skill (SKILL.md) for your coding-agent harnesses",
		long: `Install SKILL.md, the protocol an agent follows to take turns with stick, as the
skill "stick" of each named harness, or of every harness installed on this
machine (--all):

  claude-code  ~/.claude/skills/stick/SKILL.md
  codex        ~/.agents/skills/stick/SKILL.md  (the user skills folder Codex documents;
               Gemini CLI and OpenCode read it too)
  gemini       ~/.gemini/skills/stick/SKILL.md  ($GEMINI_CLI_HOME/.gemini when set)
  opencode     ~/.config/opencode/skills/stick/SKILL.md  ($XDG_CONFIG_HOME when set)
  antigravity  ~/.gemini/config/skills/stick/SKILL.md
  grok         ~/.grok/skills/stick/SKILL.md

Installing again changes nothing; an older text is replaced.`,
		example: "  stick install-skill --all\n  stick install-skill claude-code --dry-run",
		do: func(_ context.Context, h *harness.Harness, opts harness.Options) harness.Result {
			return h.InstallSkill(skill.Markdown, opts.DryRun)
		},
	})
}

func newUninstallSkill() *cobra.Command {
	return harnessCommand(harnessOp{
		use:   "uninstall-skill [claude-code|codex|gemini|opencode|antigravity|grok ...] [--all]",
		short: "Remove the stick skill from your coding-agent harnesses",
		long: `Remove the skill "stick" (<skills dir>/stick/SKILL.md) from each named harness,
or from every harness installed on this machine (--all), and the folders install
made for it once they are empty: the stick folder, the skills folder and, for
Codex, ~/.agents. A folder with anything else in it stays, and so does the
harness's own directory.`,
		example: "  stick uninstall-skill --all\n  stick uninstall-skill codex gemini",
		do: func(_ context.Context, h *harness.Harness, opts harness.Options) harness.Result {
			return h.UninstallSkill(opts.DryRun)
		},
	})
}

func harnessCommand(op harnessOp) *cobra.Command {
	var asJSON, all, dryRun, noGuard bool
	var command, tools, hub, tokenFile, token string
	cmd := &cobra.Command{
		Use:       op.use,
		Short:     op.short,
		Long:      op.long,
		Example:   op.example,
		ValidArgs: harness.Names(),
		Args: func(_ *cobra.Command, args []string) error {
			return checkHarnessArgs(args, all)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := harness.Options{DryRun: dryRun, NoGuard: noGuard}
			if op.needsCommand {
				if cmd.Flags().Changed("token") {
					return tokenOnCommandLine()
				}
				set, err := mcpserver.ParseToolSet(tools)
				if err != nil {
					return fmt.Errorf("--tools: %v", err)
				}
				if set != mcpserver.AllTools {
					opts.Tools = string(set)
				}
				if opts.Server, opts.TokenFile, err = proxyFlags(hub, tokenFile); err != nil {
					return err
				}
				if opts.Database, err = installDatabase(cmd, opts.Server); err != nil {
					return err
				}
				c, err := stickCommand(command)
				if err != nil {
					return err
				}
				opts.Command = c
			}
			harnesses := harness.All()
			if !all {
				harnesses = nil
				for _, name := range args {
					h, _ := harness.Lookup(name)
					if !slices.Contains(harnesses, h) {
						harnesses = append(harnesses, h)
					}
				}
			}
			results := make([]harness.Result, 0, len(harnesses))
			for _, h := range harnesses {
				done := op.do(cmd.Context(), h, opts)
				results = append(results, done)
				if op.guard != nil {
					if r, ok := op.guard(h, opts, done); ok {
						results = append(results, r)
					}
				}
			}
			p := newPrinter(cmd.OutOrStdout(), asJSON)
			if asJSON {
				if err := p.JSON(results); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					fmt.Fprintln(p.w, resultLine(p, r))
				}
			}
			if err := failures(cmd.Name(), results); err != nil {
				return err
			}
			return notDetected(cmd.Name(), all, results, p)
		},
	}
	addJSON(cmd, &asJSON)
	cmd.Flags().BoolVar(&all, "all", false, "every harness installed on this machine")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what would change and change nothing")
	if op.needsCommand {
		cmd.Flags().StringVar(&command, "command", "", "the stick binary to register (default: stick on PATH, else this binary)")
		cmd.Flags().StringVar(&tools, "tools", string(mcpserver.AllTools), "the tools the registered server offers: all, or core for taking turns only")
		cmd.Flags().StringVar(&hub, "server", "", "register the proxy for the hub at this URL ('stick mcp --server') instead of the local server")
		cmd.Flags().StringVar(&tokenFile, "token-file", "", "with --server: the file the proxy reads the hub's token from (default: $"+tokenEnv+" of the harness)")
		cmd.Flags().StringVar(&token, "token", "", "refused: give the token in a file or $"+tokenEnv)
		_ = cmd.Flags().MarkHidden("token")
		cmd.Flags().BoolVar(&noGuard, "no-guard", false, "do not add the stop guard, Claude Code's Stop hook that keeps a session from ending while it holds the stick")
	}
	return cmd
}

// installDatabase returns the PostgreSQL database an install registers
// the server on: the global --database, else $STICK_DATABASE_URL, else
// "" (the host's SQLite database). A proxy (--server) uses its hub's
// database, so one given with it is refused; so is a URL with a
// password, which the harness's configuration would keep in plain text.
func installDatabase(cmd *cobra.Command, server string) (string, error) {
	db := ""
	if f := cmd.Flags().Lookup("database"); f != nil {
		db = f.Value.String()
	}
	if db == "" {
		db = os.Getenv(storeurl.Env)
	}
	switch _, perr := url.Parse(db); {
	case db == "":
		return "", nil
	case perr != nil || !storeurl.IsPostgres(db):
		return "", stick.Errorf(stick.CodeInvalidArgument, "the database URL %s is not a valid PostgreSQL URL", stick.Quote(storeurl.Redact(db))).
			With("field", "database").WithHint("give a URL such as postgres://user@host:5432/stick")
	case server != "":
		return "", stick.Errorf(stick.CodeInvalidArgument, "--server and a database (--database or $%s) name two stores: a proxy uses its hub's database", storeurl.Env).
			With("field", "database").WithHint("give --server for agents that go through a hub, or the database for agents that use it directly, not both")
	case storeurl.HasPassword(db):
		return "", stick.Errorf(stick.CodeInvalidArgument, "the database URL %s holds a password, which the harness's configuration would keep in plain text", storeurl.Redact(db)).
			With("field", "database").
			WithHint("put the password in ~/.pgpass (host:port:database:user:password, chmod 600) or $PGPASSWORD of the harness, and install with the URL without it")
	}
	return db, nil
}

// proxyFlags checks the --server and --token-file of an install: an http
// or https URL, and an absolute path to a file that exists (the harness
// starts the proxy in a directory of its choosing).
func proxyFlags(hub, tokenFile string) (string, string, error) {
	if hub == "" {
		if tokenFile != "" {
			return "", "", stick.Errorf(stick.CodeInvalidArgument, "--token-file goes with --server URL: the local server needs no token").With("field", "token-file")
		}
		return "", "", nil
	}
	if u, err := url.Parse(hub); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", stick.Errorf(stick.CodeInvalidArgument, "--server %s is not an http or https URL", stick.Quote(hub)).With("field", "server").
			WithHint("give the hub's URL, such as https://stick.example.com")
	}
	if tokenFile == "" {
		return hub, "", nil
	}
	abs, err := filepath.Abs(tokenFile)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		return "", "", stick.Errorf(stick.CodeInvalidArgument, "--token-file %s: %v", tokenFile, err).With("field", "token-file").
			WithHint("write the token 'stick token create' printed on the hub's host into a file only you can read (chmod 600), then install again")
	}
	return hub, abs, nil
}

// checkHarnessArgs accepts known harness names or --all, not both; anything
// else is a usage error.
func checkHarnessArgs(args []string, all bool) error {
	for _, a := range args {
		if _, ok := harness.Lookup(a); !ok {
			return fmt.Errorf("unknown harness %s: the harnesses are %s", stick.Quote(a), strings.Join(harness.Names(), ", "))
		}
	}
	switch {
	case all && len(args) > 0:
		return fmt.Errorf("name harnesses or pass --all, not both")
	case !all && len(args) == 0:
		return fmt.Errorf("name one or more harnesses (%s) or pass --all", strings.Join(harness.Names(), ", "))
	}
	return nil
}

// resultLine is one harness's line: "codex: installed (codex mcp add ...)".
func resultLine(p *printer, r harness.Result) string {
	words := r.Words()
	switch r.Status {
	case harness.StatusInstalled, harness.StatusAlreadyInstalled, harness.StatusUninstalled:
		words = p.green(words)
	case harness.StatusFailed:
		words = p.red(words)
	case harness.StatusSkipped, harness.StatusUnsupported, harness.StatusNotInstalled:
		words = p.Dim(words)
	default:
		words = p.Warn(words)
	}
	name := r.Harness
	if r.Part != "" {
		name += " " + r.Part
	}
	line := name + ": " + words
	if r.Previous != "" && (r.Status == harness.StatusReplaced || r.Status == harness.StatusWouldReplace) {
		line += " " + r.Previous
	}
	if e := r.Explain(); e != "" {
		line += " (" + e + ")"
	}
	return line
}

// failures turns failed results into one harness_error, after every harness
// was tried: the error (of the only failure) and what to do about each.
func failures(op string, results []harness.Result) error {
	var failed []harness.Result
	var names []string
	for _, r := range results {
		if r.Failed() {
			failed = append(failed, r)
			names = append(names, r.Harness)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	again := fmt.Sprintf("run 'stick %s %s' again (repeating it is safe)", op, strings.Join(names, " "))
	if len(failed) == 1 && failed[0].Fix != "" {
		return stick.Errorf(stick.CodeHarness, "%s failed for %s: %s", op, names[0], failed[0].Error).With("harness", names[0]).
			WithHint("%s; then %s", failed[0].Fix, again)
	}
	var fixes []string
	for _, r := range failed {
		if r.Fix != "" {
			fixes = append(fixes, r.Harness+": "+r.Fix)
		}
	}
	if len(fixes) == 0 {
		fixes = []string{"the lines above say why; fix that"}
	}
	return stick.Errorf(stick.CodeHarness, "%s failed for %s", op, strings.Join(names, ", ")).With("harness", strings.Join(names, ",")).
		WithHint("%s; then %s", strings.Join(fixes, "; "), again)
}

// notDetected explains an install that found nothing to install into: a
// harness named on the command line that is not on this machine is an
// error; --all finding no harness at all is said in a line.
func notDetected(op string, all bool, results []harness.Result, p *printer) error {
	if !strings.HasPrefix(op, "install") {
		return nil
	}
	var missing []string
	for _, r := range results {
		if r.Status == harness.StatusSkipped {
			missing = append(missing, r.Harness)
		}
	}
	switch {
	case len(missing) == 0:
		return nil
	case !all:
		return stick.Errorf(stick.CodeInvalidArgument, "not installed on this machine: %s; nothing was registered for it", strings.Join(missing, ", ")).
			WithHint("install the harness (or put its binary on PATH) and run 'stick %s %s' again", op, strings.Join(missing, " "))
	case len(missing) == len(results) && !p.json:
		fmt.Fprintln(p.w, "no harness found on this machine; install one (its binary on PATH) and run this again, or register 'stick mcp' by hand (see README)")
	}
	return nil
}

// stickCommand resolves the stick binary a harness will run: --command when
// given, else the stick on PATH, else this binary unless it is a temporary
// build that 'go run' deletes when it exits.
func stickCommand(flag string) (string, error) {
	if flag != "" {
		if !strings.ContainsRune(flag, filepath.Separator) {
			return flag, nil // a bare name, looked up on PATH when the harness starts it
		}
		abs, err := filepath.Abs(flag)
		if err != nil {
			return "", stick.Errorf(stick.CodeInvalidArgument, "--command %s: %v", flag, err).With("field", "command")
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
			return "", stick.Errorf(stick.CodeInvalidArgument, "--command %s: no stick binary there", flag).With("field", "command").
				WithHint("pass the path of an installed stick binary")
		}
		return abs, nil
	}
	if p, err := exec.LookPath("stick"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	exe, err := executable()
	if err != nil {
		return "", stick.Errorf(stick.CodeInvalidArgument, "cannot find the stick binary: %v", err).
			WithHint("pass --command PATH")
	}
	if temporaryBuild(exe) {
		return "", stick.Errorf(stick.CodeInvalidArgument, "this stick is a temporary build (%s) that is deleted when it exits, and there is no stick on PATH", exe).
			WithHint("install it with 'go install ./cmd/stick' and put $(go env GOPATH)/bin on PATH, or pass --command PATH")
	}
	return exe, nil
}

// temporaryBuild reports whether exe lives in a Go build directory
// ($TMPDIR/go-build.../exe/stick for 'go run').
func temporaryBuild(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}
