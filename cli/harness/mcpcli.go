package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// commandTimeout bounds one harness command ('claude mcp get' starts the
// registered server to check its health).
const commandTimeout = 2 * time.Minute

// cliRegistrar registers the MCP server with the harness's own 'mcp add' and
// 'mcp remove' commands.
type cliRegistrar struct {
	// lookup returns the registered command line (command and arguments) of
	// the server named stick, and whether there is one.
	lookup func(ctx context.Context, bin string) (cmdline []string, found bool, err error)
	// add returns the arguments (after the binary) that register cmdline.
	add func(cmdline []string) []string
	// remove is the arguments (after the binary) that unregister the server.
	remove []string
}

func (c *cliRegistrar) install(ctx context.Context, h *Harness, bin string, opts Options) Result {
	res := Result{Harness: h.Name}
	want := opts.cmdline()
	current, found, err := c.lookup(ctx, bin)
	if err != nil {
		return failed(res, err)
	}
	if found && slices.Equal(current, want) {
		res.Status, res.Detail = StatusAlreadyInstalled, ShellJoin(want)
		return res
	}
	res.Status, res.Detail = StatusInstalled, ShellJoin(want)
	if found {
		res.Status, res.Previous = StatusReplaced, ShellJoin(current)
		res.Commands = append(res.Commands, c.remove)
	}
	res.Commands = append(res.Commands, c.add(want))
	if opts.DryRun {
		res.Status = dryRunOf(res.Status)
	} else if err := runAll(ctx, bin, res.Commands); err != nil {
		return failed(res, err)
	}
	res.Commands = named(h.Binary, res.Commands)
	return res
}

func (c *cliRegistrar) uninstall(ctx context.Context, h *Harness, bin string, opts Options) Result {
	res := Result{Harness: h.Name}
	current, found, err := c.lookup(ctx, bin)
	if err != nil {
		return failed(res, err)
	}
	if !found {
		res.Status = StatusNotInstalled
		return res
	}
	res.Status, res.Previous, res.Commands = StatusUninstalled, ShellJoin(current), [][]string{c.remove}
	if opts.DryRun {
		res.Status = StatusWouldUninstall
	} else if err := runAll(ctx, bin, res.Commands); err != nil {
		return failed(res, err)
	}
	res.Commands = named(h.Binary, res.Commands)
	return res
}

// failed turns res into a failure: the error, and what to do about it.
func failed(res Result, err error) Result {
	res.Status, res.Error, res.Fix, res.Commands = StatusFailed, err.Error(), fixFor(res.Harness, err), nil
	return res
}

// named puts the binary's name in front of each argument list, for reports.
func named(binary string, cmds [][]string) [][]string {
	out := make([][]string, len(cmds))
	for i, c := range cmds {
		out[i] = append([]string{binary}, c...)
	}
	return out
}

func runAll(ctx context.Context, bin string, cmds [][]string) error {
	for _, args := range cmds {
		if _, err := run(ctx, bin, args...); err != nil {
			return err
		}
	}
	return nil
}

// exitError is a harness command that ran and exited non-zero.
type exitError struct {
	cmdline string
	code    int
	stderr  string // its first lines, for the report
	output  string // all it printed, standard output and error
}

func (e *exitError) Error() string {
	msg := fmt.Sprintf("%s exited with status %d", e.cmdline, e.code)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

// run runs the harness binary with args, without input, and returns what it
// printed on standard output. A non-zero exit is an *exitError carrying the
// first lines of standard error.
func run(ctx context.Context, bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	cmdline := ShellJoin(append([]string{filepath.Base(bin)}, args...))
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ctx.Err() == nil:
		return stdout.Bytes(), &exitError{cmdline: cmdline, code: ee.ExitCode(), stderr: firstLines(stderr.String(), 3),
			output: stdout.String() + stderr.String()}
	case err != nil:
		return nil, fmt.Errorf("%s: %w", cmdline, err)
	}
	return stdout.Bytes(), nil
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, " / ")
}

// lookupOutput runs a harness's "show one server" command. Claude Code and
// Codex both exit 1 and say "No MCP server ..." when the server is not
// registered; any other failure is an error, so that a broken harness is not
// mistaken for one without stick.
func lookupOutput(ctx context.Context, bin string, args ...string) (out []byte, found bool, err error) {
	out, err = run(ctx, bin, args...)
	var ee *exitError
	if errors.As(err, &ee) && strings.Contains(strings.ToLower(ee.output), "no mcp server") {
		return nil, false, nil
	}
	return out, err == nil, err
}

// claudeLookup reads 'claude mcp get stick', which prints
//
//	stick:
//	  Scope: User config (available in all your projects)
//	  Status: ✓ Connected
//	  Type: stdio
//	  Command: /usr/local/bin/stick
//	  Args: mcp
//
// and exits 1 when no server has that name. A server found in another scope
// (local, project) does not count: stick registers in the user scope.
func claudeLookup(ctx context.Context, bin string) ([]string, bool, error) {
	out, found, err := lookupOutput(ctx, bin, "mcp", "get", ServerName)
	if !found {
		return nil, false, err
	}
	fields := map[string]string{}
	for line := range strings.Lines(string(out)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	if scope, ok := fields["Scope"]; ok && !strings.HasPrefix(scope, "User") {
		return nil, false, nil
	}
	command, ok := fields["Command"]
	if !ok {
		return nil, false, &outputError{cmdline: "claude mcp get " + ServerName, err: "no Command line"}
	}
	return append([]string{command}, strings.Fields(fields["Args"])...), true, nil
}

// codexLookup reads 'codex mcp get --json stick', which prints the server as
// {"name": ..., "transport": {"type": "stdio", "command": ..., "args": [...]}}
// (older releases: "command" and "args" at the top level) and exits 1 when no
// server has that name.
func codexLookup(ctx context.Context, bin string) ([]string, bool, error) {
	out, found, err := lookupOutput(ctx, bin, "mcp", "get", "--json", ServerName)
	if !found {
		return nil, false, err
	}
	type launcher struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	var v struct {
		launcher
		Transport *launcher `json:"transport"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, false, &outputError{cmdline: "codex mcp get --json " + ServerName, err: err.Error()}
	}
	l := v.launcher
	if v.Transport != nil {
		l = *v.Transport
	}
	if l.Command == "" {
		return []string{}, true, nil // registered, but not as a command (a URL): replace it
	}
	return append([]string{l.Command}, l.Args...), true, nil
}

// geminiLookup reads the user's Gemini CLI settings, where 'gemini mcp add
// --scope user' writes: mcpServers.stick.{command, args} in
// ~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini when set). Gemini CLI has
// no command that shows one server without connecting to all of them.
func geminiLookup(context.Context, string) ([]string, bool, error) {
	dir, err := geminiDir()()
	if err != nil {
		return nil, false, err
	}
	path := filepath.Join(dir, "settings.json")
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	raw, found, err := getJSON(src, "mcpServers", ServerName)
	if err != nil {
		return nil, false, &configError{path: path, err: err}
	}
	if !found {
		return nil, false, nil
	}
	var v struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &v) != nil || v.Command == "" {
		return []string{}, true, nil // not a command we recognise: replace it
	}
	return append([]string{v.Command}, v.Args...), true, nil
}
