// Package harness registers 'stick mcp' and the stick skill with the coding-agent
// harnesses installed on this machine (Claude Code, Codex, Gemini CLI, OpenCode,
// Antigravity, Grok Build).
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ServerName is the name stick is registered under in every harness.
const ServerName = "stick"

// SkillName is the directory the skill is installed in, under a harness's
// skills directory: <skills dir>/stick/SKILL.md.
const SkillName = "stick"

// Harness is one coding-agent harness: how to find it, how to register an MCP
// server with it and where it reads skills from.
type Harness struct {
	// Name is the harness's name on the command line (claude-code, codex, ...).
	Name string
	// Title is the harness's product name, for help texts.
	Title string
	// Binary is the executable looked up on PATH to detect the harness.
	Binary string

	// configDir, when set, is the harness's configuration directory; its
	// existence detects the harness even without the binary on PATH.
	configDir func() (string, error)
	// skillsDir is the user-level directory the harness reads skills from;
	// nil when the harness reads no skills.
	skillsDir func() (string, error)
	// skillsRoot is the directory above which uninstalling the skill removes
	// no directory left empty; nil for the parent of skillsDir. Codex reads
	// ~/.agents/skills, a folder no harness owns, so its root is the home.
	skillsRoot func() (string, error)
	// mcp registers and unregisters the MCP server.
	mcp registrar
}

// registrar is one way of registering an MCP server: through the harness's
// own command line, or by merging into its configuration file.
type registrar interface {
	install(ctx context.Context, h *Harness, bin string, opts Options) Result
	uninstall(ctx context.Context, h *Harness, bin string, opts Options) Result
}

// Options are the settings of one install or uninstall.
type Options struct {
	// Command is the stick executable; the harness runs "<Command> mcp".
	Command string
	// Tools is the tool set the registered server offers, passed as
	// "--tools=<Tools>"; "" registers plain "<Command> mcp" (every tool).
	Tools string
	// Server, when set, registers the proxy for the hub at this URL,
	// "--server=<Server>", in place of the local server; TokenFile, with
	// it, is the file the proxy reads its token from,
	// "--token-file=<TokenFile>" (without it the proxy reads
	// $STICK_TOKEN from the harness's environment).
	Server, TokenFile string
	// Database, when set, registers the server on that PostgreSQL
	// database, "--database=<Database>", instead of the host's SQLite one.
	// It never holds a password (the harness's configuration is no place
	// for one).
	Database string
	// DryRun reports what would change and changes nothing.
	DryRun bool
	// NoGuard leaves Claude Code's stop guard out of an install.
	NoGuard bool
}

// flags are the flags of the registered "mcp" command: the tool set when
// one is chosen, the hub's URL and token file for a proxy, and the
// PostgreSQL database of a server on one.
func (o Options) flags() []string {
	var flags []string
	for _, f := range []struct{ name, value string }{{"tools", o.Tools}, {"server", o.Server}, {"token-file", o.TokenFile}, {"database", o.Database}} {
		if f.value != "" {
			flags = append(flags, "--"+f.name+"="+f.value)
		}
	}
	return flags
}

// cmdline is the command line the harness runs: Command, "mcp" and flags.
func (o Options) cmdline() []string {
	return append([]string{o.Command, "mcp"}, o.flags()...)
}

// table lists the supported harnesses in the order --all handles them.
var table = []*Harness{
	{
		Name: "claude-code", Title: "Claude Code", Binary: "claude",
		skillsDir: homeDir(".claude", "skills"),
		mcp: &cliRegistrar{
			lookup: claudeLookup,
			add: func(cmdline []string) []string {
				return append([]string{"mcp", "add", "--scope", "user", ServerName, "--"}, cmdline...)
			},
			remove: []string{"mcp", "remove", "--scope", "user", ServerName},
		},
	},
	{
		Name: "codex", Title: "Codex", Binary: "codex",
		skillsDir: homeDir(".agents", "skills"), skillsRoot: homeDir(),
		mcp: &cliRegistrar{
			lookup: codexLookup,
			add: func(cmdline []string) []string {
				return append([]string{"mcp", "add", ServerName, "--"}, cmdline...)
			},
			remove: []string{"mcp", "remove", ServerName},
		},
	},
	{
		Name: "gemini", Title: "Gemini CLI", Binary: "gemini",
		skillsDir: geminiDir("skills"),
		mcp: &cliRegistrar{
			lookup: geminiLookup,
			add: func(cmdline []string) []string {
				return append([]string{"mcp", "add", "--scope", "user", ServerName}, cmdline...)
			},
			remove: []string{"mcp", "remove", "--scope", "user", ServerName},
		},
	},
	{
		Name: "opencode", Title: "OpenCode", Binary: "opencode",
		configDir: openCodeDir(""),
		skillsDir: openCodeDir("skills"),
		mcp:       openCodeRegistrar{},
	},
	{
		Name: "antigravity", Title: "Antigravity", Binary: "agy",
		configDir: homeDir(".gemini", "config"),
		skillsDir: homeDir(".gemini", "config", "skills"),
		mcp:       antigravityRegistrar{},
	},
	{
		Name: "grok", Title: "Grok Build", Binary: "grok",
		skillsDir: homeDir(".grok", "skills"),
		mcp: &cliRegistrar{
			lookup: grokLookup,
			add: func(cmdline []string) []string {
				return append([]string{"mcp", "add", ServerName, "--"}, cmdline...)
			},
			remove: []string{"mcp", "remove", ServerName},
		},
	},
}

// All returns every supported harness, in a fixed order.
func All() []*Harness { return table }

// Names returns the names of every supported harness.
func Names() []string {
	names := make([]string, len(table))
	for i, h := range table {
		names[i] = h.Name
	}
	return names
}

// Lookup returns the harness with the given name.
func Lookup(name string) (*Harness, bool) {
	for _, h := range table {
		if h.Name == name {
			return h, true
		}
	}
	return nil, false
}

// Detect reports whether the harness is installed: its binary is on PATH or,
// for a harness configured by file, its configuration directory exists. bin
// is the binary's path when it is on PATH; why says what was looked for when
// the harness is not detected.
func (h *Harness) Detect() (bin string, ok bool, why string) {
	if p, err := exec.LookPath(h.Binary); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		return p, true, ""
	}
	why = "no " + h.Binary + " on PATH"
	if h.configDir == nil {
		return "", false, why
	}
	dir, err := h.configDir()
	if err != nil {
		return "", false, why
	}
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return "", true, ""
	}
	return "", false, why + ", no " + dir
}

// Install registers "<opts.Command> mcp" (with its flags: --tools,
// --server and --token-file when set) as the MCP server "stick" with the
// harness, if the harness is detected. Registering again with the same
// command changes nothing; a registration with another command is replaced.
func (h *Harness) Install(ctx context.Context, opts Options) Result {
	bin, ok, why := h.Detect()
	if !ok {
		return Result{Harness: h.Name, Status: StatusSkipped, Detail: "not detected: " + why}
	}
	return h.mcp.install(ctx, h, bin, opts)
}

// Uninstall removes the MCP server "stick" from the harness, if the harness
// is detected and the server is registered.
func (h *Harness) Uninstall(ctx context.Context, opts Options) Result {
	bin, ok, why := h.Detect()
	if !ok {
		return Result{Harness: h.Name, Status: StatusSkipped, Detail: "not detected: " + why}
	}
	return h.mcp.uninstall(ctx, h, bin, opts)
}

// homeDir returns a function resolving a path below the home directory.
func homeDir(elem ...string) func() (string, error) {
	return func() (string, error) {
		home, err := userHome()
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{home}, elem...)...), nil
	}
}

// geminiDir resolves a path below Gemini CLI's directory:
// $GEMINI_CLI_HOME/.gemini when set, else ~/.gemini.
func geminiDir(elem ...string) func() (string, error) {
	return func() (string, error) {
		home := os.Getenv("GEMINI_CLI_HOME")
		if home == "" {
			var err error
			if home, err = userHome(); err != nil {
				return "", err
			}
		} else if !filepath.IsAbs(home) {
			return "", fmt.Errorf("GEMINI_CLI_HOME %q is not an absolute path: set it to one, or unset it", home)
		}
		return filepath.Join(append([]string{home, ".gemini"}, elem...)...), nil
	}
}

// openCodeDir resolves a path below OpenCode's configuration directory:
// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode (on macOS too).
func openCodeDir(elem string) func() (string, error) {
	return func() (string, error) {
		base := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(base) {
			home, err := userHome()
			if err != nil {
				return "", err
			}
			base = filepath.Join(home, ".config")
		}
		return filepath.Join(base, "opencode", elem), nil
	}
}

// userHome is the home directory, which must be an absolute path: a
// relative HOME would make stick create harness files below whatever
// directory it runs in.
func userHome() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.New("cannot find the home directory: set HOME")
	}
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("the home directory %q is not an absolute path: set HOME to yours", home)
	}
	return home, nil
}
