package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	skill "github.com/stickhq/stick"
	"github.com/stickhq/stick/cli/harness"
)

// machine is a pretend computer for the install tests: a PATH holding only
// fake harness binaries (shell scripts that log their argv and keep what was
// registered), and empty temporary homes.
type machine struct {
	bin, home, xdg, state, log string
	env                        []string // the same environment, for runBin
}

// The fakes log each call as "name [arg] [arg] ...", and fail a call when
// $FAKE_FAIL names it ("claude mcp add").
const fakePrelude = `#!/bin/sh
PATH=/usr/bin:/bin
me=${0##*/}
{ printf '%s' "$me"; for a in "$@"; do printf ' [%s]' "$a"; done; printf '\n'; } >>"$FAKE_LOG"
if [ -n "$FAKE_FAIL" ] && [ "$FAKE_FAIL" = "$me $1 $2" ]; then echo "$me: $2 went wrong" >&2; exit 3; fi
state=$FAKE_STATE/$me
`

var fakeScripts = map[string]string{
	// Claude Code keeps the registration; 'mcp get' prints it like claude does.
	"claude": `case "$1 $2" in
"mcp get")
	[ -f "$state" ] || { echo "No MCP server found with name: \"$3\"" >&2; exit 1; }
	printf '%s:\n  Scope: User config (available in all your projects)\n  Status: ✓ Connected\n  Type: stdio\n  Command: %s\n  Args: %s\n  Environment:\n\nTo remove this server, run: claude mcp remove "%s" -s user\n' "$3" "$(sed -n 1p "$state")" "$(sed -n 2p "$state")" "$3" ;;
"mcp add")
	[ -f "$state" ] && { echo "MCP server $5 already exists in user config" >&2; exit 1; }
	shift 6; cmd=$1; shift; printf '%s\n%s\n' "$cmd" "$*" >"$state" ;;
"mcp remove")
	[ -f "$state" ] || { echo "No user-scoped MCP server found with name: $5" >&2; exit 1; }
	rm "$state" ;;
*) echo "unexpected call" >&2; exit 2 ;;
esac
`,
	// Codex: 'mcp get --json' prints the server like codex does.
	"codex": `case "$1 $2" in
"mcp get")
	[ -f "$state" ] || { echo "Error: No MCP server named '$4' found." >&2; exit 1; }
	printf '{\n  "name": "%s",\n  "enabled": true,\n  "transport": {\n    "type": "stdio",\n    "command": "%s",\n    "args": ["%s"],\n    "env": null\n  }\n}\n' "$4" "$(sed -n 1p "$state")" "$(sed -n 2p "$state" | sed 's/ /", "/g')" ;;
"mcp add")
	shift 4; cmd=$1; shift; printf '%s\n%s\n' "$cmd" "$*" >"$state" ;;
"mcp remove")
	rm -f "$state" ;;
*) echo "unexpected call" >&2; exit 2 ;;
esac
`,
	// Gemini CLI writes its user settings (JSONC, as people edit it).
	"gemini": `settings=${GEMINI_CLI_HOME:-$HOME}/.gemini/settings.json
case "$1 $2" in
"mcp add")
	shift 5; cmd=$1; shift; mkdir -p "${settings%/*}"
	printf '{\n  // servers\n  "mcpServers": {\n    "stick": {\n      "command": "%s",\n      "args": ["%s"],\n    },\n  },\n}\n' "$cmd" "$(echo "$*" | sed 's/ /", "/g')" >"$settings" ;;
"mcp remove")
	printf '{\n  "mcpServers": {}\n}\n' >"$settings" ;;
*) echo "unexpected call" >&2; exit 2 ;;
esac
`,
	"opencode": "echo 'opencode must not be run' >&2; exit 2\n",
	// Grok Build keeps its servers in ~/.grok/config.toml, as tables.
	"grok": `config=$HOME/.grok/config.toml
case "$1 $2" in
"mcp add")
	shift 4; mkdir -p "${config%/*}"
	{ printf '[mcp_servers.stick]\ncommand = "%s"\nargs = [' "$1"; shift; sep=; for a in "$@"; do printf '%s"%s"' "$sep" "$a"; sep=', '; done; printf ']\n'; } >>"$config" ;;
"mcp remove")
	[ -f "$config" ] || { echo "no MCP server named $3" >&2; exit 1; }
	awk '/^\[/{skip=($0=="[mcp_servers.stick]")} !skip' "$config" >"$config.new" && mv "$config.new" "$config" ;;
*) echo "unexpected call" >&2; exit 2 ;;
esac
`,
	"agy":   "echo 'agy must not be run' >&2; exit 2\n",
	"stick": "echo 'stick must not be run' >&2; exit 2\n",
}

// newMachine makes a machine whose PATH holds the named fakes, and points
// this process's environment (and m.env) at it.
func newMachine(t *testing.T, binaries ...string) *machine {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &machine{bin: filepath.Join(root, "bin"), home: filepath.Join(root, "home"), xdg: filepath.Join(root, "xdg"),
		state: filepath.Join(root, "state"), log: filepath.Join(root, "calls.log")}
	for _, dir := range []string{m.bin, m.home, m.xdg, m.state} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range binaries {
		if err := os.WriteFile(filepath.Join(m.bin, b), []byte(fakePrelude+fakeScripts[b]), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range [][2]string{
		{"PATH", m.bin}, {"HOME", m.home}, {"XDG_CONFIG_HOME", m.xdg}, {"CODEX_HOME", filepath.Join(m.home, ".codex")},
		{"GEMINI_CLI_HOME", ""}, {"CLAUDE_CONFIG_DIR", ""}, {"FAKE_LOG", m.log}, {"FAKE_STATE", m.state}, {"FAKE_FAIL", ""},
	} {
		t.Setenv(kv[0], kv[1])
		m.env = append(m.env, kv[0]+"="+kv[1])
	}
	return m
}

// calls returns the harness calls logged since the last call of calls.
func (m *machine) calls(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(m.log)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(m.log)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func (m *machine) wantCalls(t *testing.T, want ...string) {
	t.Helper()
	if got := m.calls(t); !slices.Equal(got, want) {
		t.Fatalf("harness calls:\n got %q\nwant %q", got, want)
	}
}

// register pretends a harness already has stick registered with command.
func (m *machine) register(t *testing.T, binary, command string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(m.state, binary), []byte(command+"\nmcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// guardLine is the line of Claude Code's stop guard with status, in the
// settings of m's home.
func guardLine(m *machine, status string) string {
	return "claude-code stop guard: " + status + " (" + filepath.Join(m.home, ".claude", "settings.json") + ")"
}

// agySkipped and grokSkipped are what --all says of Antigravity and Grok
// Build on a machine that has neither.
func (m *machine) agySkipped() string {
	return "antigravity: skipped (not detected: no agy on PATH, no " + filepath.Join(m.home, ".gemini", "config") + ")"
}

const grokSkipped = "grok: skipped (not detected: no grok on PATH)"

func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s must not exist: %v", path, err)
	}
}

// Claude Code, Codex and Gemini CLI get their own 'mcp add' with the exact
// arguments; installing again runs only the checks; uninstall removes it.
func TestInstallThroughHarnessCommands(t *testing.T) {
	m := newMachine(t, "claude", "codex", "gemini", "stick")
	s := filepath.Join(m.bin, "stick")
	code, out, errOut := run(t, "install", "--all")
	if want := lines(
		"claude-code: installed (claude mcp add --scope user stick -- "+s+" mcp)",
		guardLine(m, "installed"),
		"codex: installed (codex mcp add stick -- "+s+" mcp)",
		"gemini: installed (gemini mcp add --scope user stick "+s+" mcp)",
		"opencode: skipped (not detected: no opencode on PATH, no "+filepath.Join(m.xdg, "opencode")+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("install: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	m.wantCalls(t,
		"claude [mcp] [get] [stick]",
		"claude [mcp] [add] [--scope] [user] [stick] [--] ["+s+"] [mcp]",
		"codex [mcp] [get] [--json] [stick]",
		"codex [mcp] [add] [stick] [--] ["+s+"] [mcp]",
		"gemini [mcp] [add] [--scope] [user] [stick] ["+s+"] [mcp]")
	mustNotExist(t, filepath.Join(m.xdg, "opencode")) // not detected: nothing created
	settings := filepath.Join(m.home, ".gemini", "settings.json")
	before := readFile(t, settings)

	code, out, _ = run(t, "install", "--all")
	if want := lines(
		"claude-code: already installed ("+s+" mcp)",
		guardLine(m, "already installed"),
		"codex: already installed ("+s+" mcp)",
		"gemini: already installed ("+s+" mcp)",
		"opencode: skipped (not detected: no opencode on PATH, no "+filepath.Join(m.xdg, "opencode")+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("second install: %d\n got %q\nwant %q", code, out, want)
	}
	m.wantCalls(t, "claude [mcp] [get] [stick]", "codex [mcp] [get] [--json] [stick]")
	if readFile(t, settings) != before {
		t.Fatal("a second install changed the Gemini settings")
	}

	code, out, _ = run(t, "uninstall", "claude-code", "codex", "gemini", "codex")
	if want := lines(
		"claude-code: uninstalled (claude mcp remove --scope user stick)",
		guardLine(m, "uninstalled"),
		"codex: uninstalled (codex mcp remove stick)",
		"gemini: uninstalled (gemini mcp remove --scope user stick)",
	); code != 0 || out != want {
		t.Fatalf("uninstall: %d\n got %q\nwant %q", code, out, want)
	}
	m.wantCalls(t,
		"claude [mcp] [get] [stick]", "claude [mcp] [remove] [--scope] [user] [stick]",
		"codex [mcp] [get] [--json] [stick]", "codex [mcp] [remove] [stick]",
		"gemini [mcp] [remove] [--scope] [user] [stick]")

	code, out, _ = run(t, "uninstall", "--all")
	if want := lines("claude-code: not installed", "codex: not installed", "gemini: not installed",
		"opencode: skipped (not detected: no opencode on PATH, no "+filepath.Join(m.xdg, "opencode")+")",
		m.agySkipped(), grokSkipped); code != 0 || out != want {
		t.Fatalf("second uninstall: %d\n got %q\nwant %q", code, out, want)
	}
	m.wantCalls(t, "claude [mcp] [get] [stick]", "codex [mcp] [get] [--json] [stick]")
}

// A "stick" server registered with another command is removed and added
// again, and the output says what it was.
func TestInstallReplacesAnotherCommand(t *testing.T) {
	m := newMachine(t, "claude", "codex", "gemini", "stick")
	s := filepath.Join(m.bin, "stick")
	m.register(t, "claude", "/old/stick")
	m.register(t, "codex", "/old/stick")
	gemini := filepath.Join(m.home, ".gemini")
	if err := os.MkdirAll(gemini, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gemini, "settings.json"), []byte(`{"mcpServers": {"stick": {"command": "/old/stick", "args": ["mcp"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "install", "--all")
	if want := lines(
		"claude-code: replaced /old/stick mcp (claude mcp remove --scope user stick; claude mcp add --scope user stick -- "+s+" mcp)",
		guardLine(m, "installed"),
		"codex: replaced /old/stick mcp (codex mcp remove stick; codex mcp add stick -- "+s+" mcp)",
		"gemini: replaced /old/stick mcp (gemini mcp remove --scope user stick; gemini mcp add --scope user stick "+s+" mcp)",
		"opencode: skipped (not detected: no opencode on PATH, no "+filepath.Join(m.xdg, "opencode")+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("install: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	m.wantCalls(t,
		"claude [mcp] [get] [stick]", "claude [mcp] [remove] [--scope] [user] [stick]",
		"claude [mcp] [add] [--scope] [user] [stick] [--] ["+s+"] [mcp]",
		"codex [mcp] [get] [--json] [stick]", "codex [mcp] [remove] [stick]", "codex [mcp] [add] [stick] [--] ["+s+"] [mcp]",
		"gemini [mcp] [remove] [--scope] [user] [stick]", "gemini [mcp] [add] [--scope] [user] [stick] ["+s+"] [mcp]")
}

// --dry-run runs only the read-only checks, writes nothing and says what it
// would do.
func TestInstallDryRun(t *testing.T) {
	m := newMachine(t, "claude", "codex", "gemini", "opencode", "stick")
	s := filepath.Join(m.bin, "stick")
	config := filepath.Join(m.xdg, "opencode", "opencode.json")
	code, out, _ := run(t, "install", "--all", "--dry-run")
	if want := lines(
		"claude-code: would install (claude mcp add --scope user stick -- "+s+" mcp)",
		guardLine(m, "would install"),
		"codex: would install (codex mcp add stick -- "+s+" mcp)",
		"gemini: would install (gemini mcp add --scope user stick "+s+" mcp)",
		"opencode: would install ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("dry run: %d\n got %q\nwant %q", code, out, want)
	}
	m.wantCalls(t, "claude [mcp] [get] [stick]", "codex [mcp] [get] [--json] [stick]")
	for _, p := range []string{filepath.Join(m.xdg, "opencode"), filepath.Join(m.home, ".gemini"), filepath.Join(m.state, "claude"), filepath.Join(m.state, "codex")} {
		mustNotExist(t, p)
	}

	if code, _, errOut := run(t, "install", "--all"); code != 0 {
		t.Fatalf("install: %d %q", code, errOut)
	}
	m.calls(t)
	created := readFile(t, config)
	code, out, _ = run(t, "uninstall", "--all", "--dry-run")
	if want := lines(
		"claude-code: would uninstall (claude mcp remove --scope user stick)",
		guardLine(m, "would uninstall"),
		"codex: would uninstall (codex mcp remove stick)",
		"gemini: would uninstall (gemini mcp remove --scope user stick)",
		"opencode: would uninstall ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("uninstall dry run: %d\n got %q\nwant %q", code, out, want)
	}
	m.wantCalls(t, "claude [mcp] [get] [stick]", "codex [mcp] [get] [--json] [stick]")
	if readFile(t, config) != created {
		t.Fatal("a dry run changed the OpenCode config")
	}
}

// OpenCode is configured by a careful merge into its JSONC file: the exact
// bytes are asserted, every other key, comment and odd space stays, the mode
// is kept, a second install changes nothing and uninstall restores the file.
func TestInstallOpenCodeMerge(t *testing.T) {
	m := newMachine(t, "stick") // no opencode binary: its config directory detects it
	s := filepath.Join(m.bin, "stick")
	dir := filepath.Join(m.xdg, "opencode")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "opencode.jsonc")
	original := "// my OpenCode\n{\n" +
		"  \"$schema\": \"https://opencode.ai/config.json\",\n" +
		"\t\"theme\":   \"tokyonight\",   /* tabs and odd spacing */\n" +
		"  \"mcp\": {\n" +
		"    // the issue tracker\n" +
		"    \"jira\": {\"type\": \"remote\", \"url\": \"https://jira.example.com/mcp\", \"enabled\": true,},\n" +
		"  },\n" +
		"  \"model\": \"anthropic/claude-sonnet-4\", // last\n" +
		"}\n"
	if err := os.WriteFile(config, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "install", "--all")
	if want := lines(
		"claude-code: skipped (not detected: no claude on PATH)",
		"codex: skipped (not detected: no codex on PATH)",
		"gemini: skipped (not detected: no gemini on PATH)",
		"opencode: installed ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("install: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	want := "// my OpenCode\n{\n" +
		"  \"$schema\": \"https://opencode.ai/config.json\",\n" +
		"\t\"theme\":   \"tokyonight\",   /* tabs and odd spacing */\n" +
		"  \"mcp\": {\n" +
		"    // the issue tracker\n" +
		"    \"jira\": {\"type\": \"remote\", \"url\": \"https://jira.example.com/mcp\", \"enabled\": true,},\n" +
		"    \"stick\": {\n" +
		"      \"type\": \"local\",\n" +
		"      \"command\": [\"" + s + "\", \"mcp\"],\n" +
		"      \"enabled\": true\n" +
		"    },\n" +
		"  },\n" +
		"  \"model\": \"anthropic/claude-sonnet-4\", // last\n" +
		"}\n"
	if got := readFile(t, config); got != want {
		t.Fatalf("merged config:\n got %q\nwant %q", got, want)
	}
	if fi, _ := os.Stat(config); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode not kept: %v", fi.Mode())
	}
	mustNotExist(t, filepath.Join(dir, "opencode.json"))
	m.wantCalls(t)

	code, out, _ = run(t, "install", "opencode")
	if code != 0 || out != lines("opencode: already installed ("+config+")") || readFile(t, config) != want {
		t.Fatalf("second install: %d %q", code, out)
	}
	code, out, _ = run(t, "uninstall", "opencode")
	if code != 0 || out != lines("opencode: uninstalled ("+config+")") || readFile(t, config) != original {
		t.Fatalf("uninstall: %d %q\n%q", code, out, readFile(t, config))
	}
	code, out, _ = run(t, "uninstall", "opencode")
	if code != 0 || out != lines("opencode: not installed") || readFile(t, config) != original {
		t.Fatalf("second uninstall: %d %q", code, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("left behind in %s: %v", dir, entries)
	}
}

// An OpenCode found on PATH without a config gets a new opencode.json, which
// uninstall removes again; an invalid config is a harness_error that names
// the file, says what to do and touches nothing.
func TestInstallOpenCodeNewAndBrokenConfig(t *testing.T) {
	m := newMachine(t, "opencode", "stick")
	s := filepath.Join(m.bin, "stick")
	config := filepath.Join(m.xdg, "opencode", "opencode.json")
	code, out, _ := run(t, "install", "opencode")
	if code != 0 || out != lines("opencode: installed ("+config+")") {
		t.Fatalf("install: %d %q", code, out)
	}
	want := "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"mcp\": {\n    \"stick\": {\n      \"type\": \"local\",\n" +
		"      \"command\": [\"" + s + "\", \"mcp\"],\n      \"enabled\": true\n    }\n  }\n}\n"
	if got := readFile(t, config); got != want {
		t.Fatalf("new config:\n got %q\nwant %q", got, want)
	}
	// Uninstall removes the file install created, and its directory.
	if code, out, _ = run(t, "uninstall", "opencode"); code != 0 || out != lines("opencode: uninstalled ("+config+")") {
		t.Fatalf("uninstall: %d %q", code, out)
	}
	mustNotExist(t, filepath.Dir(config))
	// A file that had more than stick's server keeps the rest.
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "install", "opencode"); code != 0 {
		t.Fatalf("install: %d %q", code, errOut)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(readFile(t, config), "{\n", "{\n  \"theme\": \"x\",\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ = run(t, "uninstall", "opencode"); code != 0 || readFile(t, config) != "{\n  \"theme\": \"x\",\n  \"$schema\": \"https://opencode.ai/config.json\"\n}\n" {
		t.Fatalf("uninstall of an edited file: %d %q", code, readFile(t, config))
	}

	broken := "{\n  \"theme\": \"x\"\n  \"model\": \"y\"\n}\n"
	if err := os.WriteFile(config, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"install", "uninstall"} {
		code, out, errOut := run(t, op, "opencode")
		if code != 1 || !strings.HasPrefix(out, "opencode: failed (cannot read "+config+": not valid JSON at line 3, column 3") ||
			!strings.HasPrefix(errOut, "stick: harness_error: "+op+" failed for opencode: cannot read "+config+": not valid JSON at line 3, column 3") ||
			!strings.HasSuffix(errOut, "\nhint: fix the JSON of "+config+" where the error says (or move the file aside); then run 'stick "+op+" opencode' again (repeating it is safe)\n") ||
			readFile(t, config) != broken {
			t.Fatalf("%s with a broken config: %d %q %q", op, code, out, errOut)
		}
	}
	r := runBin(t, "", m.env, "install", "opencode", "--json")
	var results []harness.Result
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil || r.code != 1 || len(results) != 1 ||
		results[0].Status != harness.StatusFailed || !strings.HasPrefix(results[0].Fix, "fix the JSON of "+config) {
		t.Fatalf("--json with a broken config: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// A harness that prints what stick cannot read is a harness_error that says
// what to do, never internal, and changes nothing.
func TestInstallUnreadableHarnessOutput(t *testing.T) {
	m := newMachine(t, "stick")
	for name, script := range map[string]string{
		"claude": "echo 'stick: something new'\n",  // no Command line
		"codex":  "echo 'Server: stick (stdio)'\n", // not JSON
		"gemini": "echo 'gemini must not be run' >&2; exit 2\n",
	} {
		if err := os.WriteFile(filepath.Join(m.bin, name), []byte(fakePrelude+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gemini := filepath.Join(m.home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(gemini), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gemini, []byte(`{"mcpServers": [}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ harness, line, hint string }{
		{"claude-code", "claude-code: failed (cannot read the output of 'claude mcp get stick': no Command line)",
			"hint: this Claude Code prints what stick does not expect (a newer release?): update stick, or register stick by hand as 'stick mcp --help' shows; then run 'stick install claude-code' again"},
		{"codex", "codex: failed (cannot read the output of 'codex mcp get --json stick': invalid character 'S' looking for beginning of value)",
			"hint: this Codex prints what stick does not expect (a newer release?)"},
		{"gemini", "gemini: failed (cannot read " + gemini + ": not valid JSON",
			"hint: fix the JSON of " + gemini + " where the error says (or move the file aside); then run 'stick install gemini' again"},
	} {
		code, out, errOut := run(t, "install", tc.harness)
		if code != 1 || !strings.HasPrefix(out, tc.line) || !strings.HasPrefix(errOut, "stick: harness_error: install failed for "+tc.harness+": ") ||
			!strings.Contains(errOut, tc.hint) {
			t.Errorf("install %s: %d\n%s%s", tc.harness, code, out, errOut)
		}
	}
	m.calls(t)
	for _, c := range m.calls(t) {
		if strings.Contains(c, "[add]") || strings.Contains(c, "[remove]") {
			t.Fatalf("a harness was changed: %s", c)
		}
	}
	code, out, errOut := run(t, "install", "claude-code", "codex")
	if code != 1 || !strings.Contains(out, "claude-code: failed") || !strings.Contains(out, "codex: failed") ||
		!strings.HasPrefix(errOut, "stick: harness_error: install failed for claude-code, codex\nhint: claude-code: this Claude Code prints") ||
		!strings.Contains(errOut, "; codex: this Codex prints") {
		t.Fatalf("two failures: %d\n%s%s", code, out, errOut)
	}
}

// A failing harness command is reported on its line, the other harnesses are
// still installed, and the command exits 1 with a coded error.
func TestInstallHarnessFailure(t *testing.T) {
	m := newMachine(t, "claude", "codex", "stick")
	s := filepath.Join(m.bin, "stick")
	t.Setenv("FAKE_FAIL", "claude mcp add")
	code, out, errOut := run(t, "install", "claude-code", "codex")
	if want := lines(
		"claude-code: failed (claude mcp add --scope user stick -- "+s+" mcp exited with status 3: claude: add went wrong)",
		"codex: installed (codex mcp add stick -- "+s+" mcp)",
	); code != 1 || out != want {
		t.Fatalf("%d\n got %q\nwant %q", code, out, want)
	}
	if want := "stick: harness_error: install failed for claude-code: claude mcp add --scope user stick -- " + s + " mcp exited with status 3: claude: add went wrong\n" +
		"hint: run 'claude mcp add --scope user stick -- " + s + " mcp' yourself to see the whole error, and fix its cause; then run 'stick install claude-code' again (repeating it is safe)\n"; errOut != want {
		t.Fatalf("stderr: %q", errOut)
	}
	// A check that fails for another reason than "no such server" is a
	// failure, not "not installed".
	t.Setenv("FAKE_FAIL", "claude mcp get")
	code, out, _ = run(t, "uninstall", "claude-code")
	if code != 1 || out != lines("claude-code: failed (claude mcp get stick exited with status 3: claude: get went wrong)") {
		t.Fatalf("broken check: %d %q", code, out)
	}
}

// Unknown harness names, no names, and names with --all are usage errors
// (exit 2) that list the valid names.
func TestInstallUsageErrors(t *testing.T) {
	m := newMachine(t, "claude", "stick")
	for _, op := range []string{"install", "uninstall", "install-skill", "uninstall-skill"} {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"cursor"}, `stick: unknown harness "cursor": the harnesses are claude-code, codex, gemini, opencode, antigravity, grok`},
			{[]string{"claude-code", "Codex"}, `stick: unknown harness "Codex": the harnesses are claude-code, codex, gemini, opencode, antigravity, grok`},
			{nil, "stick: name one or more harnesses (claude-code, codex, gemini, opencode, antigravity, grok) or pass --all"},
			{[]string{"codex", "--all"}, "stick: name harnesses or pass --all, not both"},
			{[]string{"--everything"}, "stick: unknown flag: --everything"},
		} {
			code, out, errOut := run(t, append([]string{op}, tc.args...)...)
			if code != 2 || out != "" || errOut != tc.want+"\nhint: run 'stick "+op+" --help' for usage\n" {
				t.Errorf("%s %v: %d %q %q", op, tc.args, code, out, errOut)
			}
		}
	}
	if code, out, _ := run(t, "install", "--help"); code != 0 || !strings.Contains(out, "stick install --all") ||
		!strings.Contains(out, "claude mcp add --scope user stick -- STICK mcp") || !strings.Contains(out, "--dry-run") {
		t.Fatalf("help: %d %q", code, out)
	}
	m.wantCalls(t) // a usage error runs no harness command
}

// The registered command is the stick on PATH, else this binary, else --command;
// a 'go run' build is refused with a hint.
func TestInstallCommandResolution(t *testing.T) {
	m := newMachine(t, "codex") // no stick on PATH
	old := executable
	t.Cleanup(func() { executable = old })

	executable = func() (string, error) { return "/tmp/go-build1234/b001/exe/stick", nil }
	code, out, errOut := run(t, "install", "--all")
	if code != 1 || out != "" || !strings.HasPrefix(errOut, "stick: invalid_argument: this stick is a temporary build (/tmp/go-build1234/b001/exe/stick)") ||
		!strings.Contains(errOut, "hint: install it with 'go install ./cmd/stick'") || !strings.Contains(errOut, "or pass --command PATH") {
		t.Fatalf("go run build: %d %q %q", code, out, errOut)
	}
	m.wantCalls(t)

	own := filepath.Join(m.home, "stick")
	executable = func() (string, error) { return own, nil }
	code, out, _ = run(t, "install", "codex", "--dry-run")
	if code != 0 || out != lines("codex: would install (codex mcp add stick -- "+own+" mcp)") {
		t.Fatalf("own binary: %d %q", code, out)
	}

	if err := os.WriteFile(filepath.Join(m.home, "my stick"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(m.home)
	code, out, _ = run(t, "install", "codex", "--command", "./my stick")
	if code != 0 || out != lines("codex: installed (codex mcp add stick -- '"+filepath.Join(m.home, "my stick")+"' mcp)") {
		t.Fatalf("--command: %d %q", code, out)
	}
	m.wantCalls(t, "codex [mcp] [get] [--json] [stick]", "codex [mcp] [get] [--json] [stick]",
		"codex [mcp] [add] [stick] [--] ["+filepath.Join(m.home, "my stick")+"] [mcp]")
	code, _, errOut = run(t, "install", "codex", "--command", "/no/such/stick")
	if code != 2 || !strings.HasPrefix(errOut, "stick: invalid_argument: --command /no/such/stick: no stick binary there") {
		t.Fatalf("missing --command: %d %q", code, errOut)
	}
}

// The skill is written for each detected harness that reads skills, once;
// uninstall removes it and the folders left empty, and nothing else.
func TestInstallSkill(t *testing.T) {
	m := newMachine(t, "claude", "codex")
	if err := os.Mkdir(filepath.Join(m.xdg, "opencode"), 0o755); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{
		"claude-code": filepath.Join(m.home, ".claude", "skills", "stick", "SKILL.md"),
		"codex":       filepath.Join(m.home, ".agents", "skills", "stick", "SKILL.md"),
		"opencode":    filepath.Join(m.xdg, "opencode", "skills", "stick", "SKILL.md"),
	}
	code, out, _ := run(t, "install-skill", "--all", "--dry-run")
	if want := lines(
		"claude-code: would install ("+paths["claude-code"]+")",
		"codex: would install ("+paths["codex"]+")",
		"gemini: skipped (not detected: no gemini on PATH)",
		"opencode: would install ("+paths["opencode"]+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("dry run: %d\n got %q\nwant %q", code, out, want)
	}
	for _, p := range paths {
		mustNotExist(t, filepath.Dir(filepath.Dir(p)))
	}

	code, out, _ = run(t, "install-skill", "--all")
	if want := lines(
		"claude-code: installed ("+paths["claude-code"]+")",
		"codex: installed ("+paths["codex"]+")",
		"gemini: skipped (not detected: no gemini on PATH)",
		"opencode: installed ("+paths["opencode"]+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("install: %d\n got %q\nwant %q", code, out, want)
	}
	for _, p := range paths {
		if readFile(t, p) != string(skill.Markdown) {
			t.Fatalf("%s is not SKILL.md", p)
		}
	}
	mustNotExist(t, filepath.Join(m.home, ".gemini"))
	m.wantCalls(t)

	if err := os.WriteFile(paths["codex"], []byte("an older text"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "install-skill", "claude-code", "codex")
	if code != 0 || out != lines("claude-code: already installed ("+paths["claude-code"]+")", "codex: replaced ("+paths["codex"]+")") ||
		readFile(t, paths["codex"]) != string(skill.Markdown) {
		t.Fatalf("again: %d %q", code, out)
	}

	notes := filepath.Join(filepath.Dir(paths["opencode"]), "notes.md")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(m.home, ".claude", "skills", "other", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("another skill"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "uninstall-skill", "--all", "--json")
	var results []harness.Result
	if err := json.Unmarshal([]byte(out), &results); code != 0 || err != nil || len(results) != 6 {
		t.Fatalf("uninstall --json: %d %v %q", code, err, out)
	}
	for i, want := range []harness.Status{harness.StatusUninstalled, harness.StatusUninstalled, harness.StatusSkipped, harness.StatusUninstalled, harness.StatusSkipped, harness.StatusSkipped} {
		if results[i].Status != want || results[i].Harness != harness.Names()[i] {
			t.Fatalf("result %d: %+v", i, results[i])
		}
	}
	mustNotExist(t, filepath.Dir(paths["claude-code"]))
	mustNotExist(t, paths["opencode"])
	if readFile(t, notes) != "mine" || readFile(t, other) != "another skill" {
		t.Fatal("another file in a skills folder was removed")
	}
	// The folders install created and nothing else uses go too: Codex's
	// ~/.agents, OpenCode's skills folder once empty; a harness's own
	// directory stays.
	mustNotExist(t, filepath.Join(m.home, ".agents"))
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "install-skill", "opencode"); code != 0 {
		t.Fatalf("install-skill opencode: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "uninstall-skill", "opencode"); code != 0 {
		t.Fatalf("uninstall-skill opencode: %d %q", code, errOut)
	}
	mustNotExist(t, filepath.Join(m.xdg, "opencode", "skills"))
	if _, err := os.Stat(filepath.Join(m.xdg, "opencode")); err != nil {
		t.Fatalf("OpenCode's own directory must stay: %v", err)
	}
	code, out, _ = run(t, "uninstall-skill", "claude-code")
	if code != 0 || out != lines("claude-code: not installed") {
		t.Fatalf("second uninstall: %d %q", code, out)
	}
}

// The same through the built binary: --json results, the commands run, exit
// codes, and this binary registered when no stick is on PATH.
func TestInstallBinary(t *testing.T) {
	m := newMachine(t, "claude", "codex", "gemini")
	dir := t.TempDir()
	r := runBin(t, dir, m.env, "install", "--all", "--json")
	if r.code != 0 {
		t.Fatalf("install: %d %q %q", r.code, r.stdout, r.stderr)
	}
	var results []harness.Result
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil || len(results) != 7 {
		t.Fatalf("%v %q", err, r.stdout)
	}
	wantCmds := [][][]string{
		{{"claude", "mcp", "add", "--scope", "user", "stick", "--", stickBin, "mcp"}},
		nil,
		{{"codex", "mcp", "add", "stick", "--", stickBin, "mcp"}},
		{{"gemini", "mcp", "add", "--scope", "user", "stick", stickBin, "mcp"}},
		nil, nil, nil,
	}
	for i, res := range results {
		want := harness.StatusInstalled
		if i >= 4 {
			want = harness.StatusSkipped
		}
		if i == 1 && (res.Part != harness.GuardPart || res.Detail != stickBin+" hook stop") {
			t.Fatalf("result %d: %+v", i, res)
		}
		gotCmds, _ := json.Marshal(res.Commands)
		wantJSON, _ := json.Marshal(wantCmds[i])
		if res.Status != want || !bytes.Equal(gotCmds, wantJSON) {
			t.Fatalf("result %d: %+v", i, res)
		}
	}
	m.wantCalls(t,
		"claude [mcp] [get] [stick]", "claude [mcp] [add] [--scope] [user] [stick] [--] ["+stickBin+"] [mcp]",
		"codex [mcp] [get] [--json] [stick]", "codex [mcp] [add] [stick] [--] ["+stickBin+"] [mcp]",
		"gemini [mcp] [add] [--scope] [user] [stick] ["+stickBin+"] [mcp]")

	r = runBin(t, dir, m.env, "install", "claude-code")
	if r.code != 0 || r.stdout != lines("claude-code: already installed ("+stickBin+" mcp)", guardLine(m, "already installed")) {
		t.Fatalf("again: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, dir, m.env, "install", "cursor")
	if r.code != 2 || r.stderr != "stick: unknown harness \"cursor\": the harnesses are claude-code, codex, gemini, opencode, antigravity, grok\nhint: run 'stick install --help' for usage\n" {
		t.Fatalf("unknown harness: %d %q", r.code, r.stderr)
	}
	r = runBin(t, dir, m.env, "install-skill", "--all", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "claude-code: would install ("+filepath.Join(m.home, ".claude", "skills", "stick", "SKILL.md")+")") {
		t.Fatalf("install-skill dry run: %d %q %q", r.code, r.stdout, r.stderr)
	}
	mustNotExist(t, filepath.Join(m.home, ".claude", "skills"))
	r = runBin(t, dir, append(m.env, "FAKE_FAIL=codex mcp remove"), "uninstall", "--all")
	if r.code != 1 || r.stdout != lines(
		"claude-code: uninstalled (claude mcp remove --scope user stick)",
		guardLine(m, "uninstalled"),
		"codex: failed (codex mcp remove stick exited with status 3: codex: remove went wrong)",
		"gemini: uninstalled (gemini mcp remove --scope user stick)",
		"opencode: skipped (not detected: no opencode on PATH, no "+filepath.Join(m.xdg, "opencode")+")",
		m.agySkipped(), grokSkipped,
	) || r.stderr != "stick: harness_error: uninstall failed for codex: codex mcp remove stick exited with status 3: codex: remove went wrong\n"+
		"hint: run 'codex mcp remove stick' yourself to see the whole error, and fix its cause; then run 'stick uninstall codex' again (repeating it is safe)\n" {
		t.Fatalf("failing uninstall: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runBin(t, dir, m.env, "uninstall", "--all")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "claude-code: not installed\ncodex: uninstalled (codex mcp remove stick)\ngemini: not installed\n") {
		t.Fatalf("uninstall: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// A harness named on the command line that is not on this machine is an
// error for install (nothing is created for it); --all that finds no
// harness says so; uninstalling an absent harness is fine.
func TestInstallNamedHarnessNotDetected(t *testing.T) {
	m := newMachine(t)
	old := executable
	executable = func() (string, error) { return stickBin, nil }
	t.Cleanup(func() { executable = old })
	for _, op := range []string{"install", "install-skill"} {
		code, out, errOut := run(t, op, "gemini")
		if code != 1 || !strings.Contains(out, "gemini: skipped (not detected") ||
			errOut != "stick: invalid_argument: not installed on this machine: gemini; nothing was registered for it\n"+
				"hint: install the harness (or put its binary on PATH) and run 'stick "+op+" gemini' again\n" {
			t.Errorf("%s gemini without gemini: %d %q %q", op, code, out, errOut)
		}
		code, out, _ = run(t, op, "--all")
		if code != 0 || !strings.Contains(out, "no harness found on this machine") {
			t.Errorf("%s --all without harnesses: %d %q", op, code, out)
		}
	}
	mustNotExist(t, filepath.Join(m.home, ".gemini"))
	if code, _, errOut := run(t, "uninstall", "gemini"); code != 0 {
		t.Errorf("uninstall of an absent harness: %d %q", code, errOut)
	}
}

// Grok Build gets 'grok mcp add', with every flag of the registered command;
// stick reads the registration back from ~/.grok/config.toml, replaces one
// with another command, and removes it with 'grok mcp remove'. Its skill
// goes to ~/.grok/skills.
func TestInstallGrok(t *testing.T) {
	m := newMachine(t, "grok", "stick")
	s := filepath.Join(m.bin, "stick")
	config := filepath.Join(m.home, ".grok", "config.toml")
	if code, out, _ := run(t, "install", "grok", "--dry-run"); code != 0 || out != lines("grok: would install (grok mcp add stick -- "+s+" mcp)") {
		t.Fatalf("dry run: %d %q", code, out)
	}
	m.wantCalls(t)
	mustNotExist(t, config)

	code, out, errOut := run(t, "install", "--all")
	if want := lines("claude-code: skipped (not detected: no claude on PATH)", "codex: skipped (not detected: no codex on PATH)",
		"gemini: skipped (not detected: no gemini on PATH)",
		"opencode: skipped (not detected: no opencode on PATH, no "+filepath.Join(m.xdg, "opencode")+")",
		m.agySkipped(), "grok: installed (grok mcp add stick -- "+s+" mcp)"); code != 0 || out != want {
		t.Fatalf("install: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	m.wantCalls(t, "grok [mcp] [add] [stick] [--] ["+s+"] [mcp]")
	if code, out, _ = run(t, "install", "grok"); code != 0 || out != lines("grok: already installed ("+s+" mcp)") {
		t.Fatalf("second install: %d %q", code, out)
	}
	m.wantCalls(t)

	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--tools=core", "--server=https://stick.example.com", "--token-file=" + token}
	code, out, errOut = run(t, "install", "grok", "--tools", "core", "--server", "https://stick.example.com", "--token-file", token)
	if want := lines("grok: replaced " + s + " mcp (grok mcp remove stick; grok mcp add stick -- " + s + " mcp " + strings.Join(flags, " ") + ")"); code != 0 || out != want {
		t.Fatalf("replace: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	m.wantCalls(t, "grok [mcp] [remove] [stick]", "grok [mcp] [add] [stick] [--] ["+s+"] [mcp] ["+strings.Join(flags, "] [")+"]")
	if code, out, _ = run(t, "install", "grok", "--tools=core", "--server=https://stick.example.com", "--token-file="+token); code != 0 ||
		out != lines("grok: already installed ("+s+" mcp "+strings.Join(flags, " ")+")") {
		t.Fatalf("install again: %d %q", code, out)
	}

	if code, out, _ = run(t, "install", "grok", "--database", "postgres://stick@db.example.com/stick", "--dry-run"); code != 0 ||
		!strings.Contains(out, "grok mcp add stick -- "+s+" mcp --database=postgres://stick@db.example.com/stick)") {
		t.Fatalf("install --database: %d %q", code, out)
	}
	m.calls(t)

	if code, out, _ = run(t, "uninstall", "grok"); code != 0 || out != lines("grok: uninstalled (grok mcp remove stick)") {
		t.Fatalf("uninstall: %d %q", code, out)
	}
	m.wantCalls(t, "grok [mcp] [remove] [stick]")
	if code, out, _ = run(t, "uninstall", "grok"); code != 0 || out != lines("grok: not installed") {
		t.Fatalf("second uninstall: %d %q", code, out)
	}
	m.wantCalls(t)

	skillFile := filepath.Join(m.home, ".grok", "skills", "stick", "SKILL.md")
	if code, out, _ = run(t, "install-skill", "grok"); code != 0 || out != lines("grok: installed ("+skillFile+")") || readFile(t, skillFile) != string(skill.Markdown) {
		t.Fatalf("install-skill: %d %q", code, out)
	}
	if code, out, _ = run(t, "uninstall-skill", "grok"); code != 0 || out != lines("grok: uninstalled ("+skillFile+")") {
		t.Fatalf("uninstall-skill: %d %q", code, out)
	}
	mustNotExist(t, filepath.Join(m.home, ".grok", "skills"))
}

// Antigravity is configured by a merge into ~/.gemini/config/mcp_config.json
// that keeps every other byte; uninstall gives the file its bytes back, and
// removes a file (and folders) install created; a file that is not JSON is
// refused and left alone.
func TestInstallAntigravity(t *testing.T) {
	m := newMachine(t, "stick") // no agy binary: its config folder detects it
	s := filepath.Join(m.bin, "stick")
	dir := filepath.Join(m.home, ".gemini", "config")
	config := filepath.Join(dir, "mcp_config.json")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	original := "{\n  // mine\n  \"mcpServers\": {\n    \"other\": {\"serverUrl\": \"https://example.com/mcp\"}\n  }\n}\n"
	if err := os.WriteFile(config, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, "install", "antigravity", "--dry-run"); code != 0 || out != lines("antigravity: would install ("+config+")") || readFile(t, config) != original {
		t.Fatalf("dry run: %d %q", code, out)
	}
	code, out, errOut := run(t, "install", "--all")
	if want := lines("claude-code: skipped (not detected: no claude on PATH)", "codex: skipped (not detected: no codex on PATH)",
		"gemini: skipped (not detected: no gemini on PATH)",
		"opencode: skipped (not detected: no opencode on PATH, no "+filepath.Join(m.xdg, "opencode")+")",
		"antigravity: installed ("+config+")", grokSkipped); code != 0 || out != want {
		t.Fatalf("install: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	want := "{\n  // mine\n  \"mcpServers\": {\n    \"other\": {\"serverUrl\": \"https://example.com/mcp\"},\n" +
		"    \"stick\": {\n      \"command\": \"" + s + "\",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n"
	if got := readFile(t, config); got != want {
		t.Fatalf("config:\n%s\nwant:\n%s", got, want)
	}
	if code, out, _ = run(t, "install", "antigravity"); code != 0 || out != lines("antigravity: already installed ("+config+")") || readFile(t, config) != want {
		t.Fatalf("second install: %d %q", code, out)
	}
	code, out, _ = run(t, "install", "antigravity", "--tools", "core", "--database", "postgres://stick@db.example.com/stick")
	if code != 0 || out != lines("antigravity: replaced "+s+" mcp ("+config+")") ||
		!strings.Contains(readFile(t, config), `"args": ["mcp", "--tools=core", "--database=postgres://stick@db.example.com/stick"]`) {
		t.Fatalf("replace: %d %q\n%s", code, out, readFile(t, config))
	}
	if code, out, _ = run(t, "uninstall", "antigravity", "--dry-run"); code != 0 || out != lines("antigravity: would uninstall ("+config+")") {
		t.Fatalf("uninstall dry run: %d %q", code, out)
	}
	if code, out, _ = run(t, "uninstall", "antigravity"); code != 0 || out != lines("antigravity: uninstalled ("+config+")") || readFile(t, config) != original {
		t.Fatalf("uninstall: %d %q\n%s", code, out, readFile(t, config))
	}
	if code, out, _ = run(t, "uninstall", "antigravity"); code != 0 || out != lines("antigravity: not installed") || readFile(t, config) != original {
		t.Fatalf("second uninstall: %d %q", code, out)
	}

	// Found by its binary, with no folder: install creates the file, and
	// uninstall removes it and the folders made for it.
	if err := os.RemoveAll(filepath.Join(m.home, ".gemini")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.bin, "agy"), []byte(fakePrelude+fakeScripts["agy"]), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, _ = run(t, "install", "antigravity", "--server", "https://stick.example.com"); code != 0 || out != lines("antigravity: installed ("+config+")") {
		t.Fatalf("install new: %d %q", code, out)
	}
	if got, want := readFile(t, config), "{\n  \"mcpServers\": {\n    \"stick\": {\n      \"command\": \""+s+"\",\n      \"args\": [\"mcp\", \"--server=https://stick.example.com\"]\n    }\n  }\n}\n"; got != want {
		t.Fatalf("new config:\n%s\nwant:\n%s", got, want)
	}
	if code, out, _ = run(t, "uninstall", "antigravity"); code != 0 || out != lines("antigravity: uninstalled ("+config+")") {
		t.Fatalf("uninstall new: %d %q", code, out)
	}
	mustNotExist(t, filepath.Join(m.home, ".gemini"))
	m.wantCalls(t) // agy is never run

	// The skill goes to ~/.gemini/config/skills.
	skillFile := filepath.Join(dir, "skills", "stick", "SKILL.md")
	if code, out, _ = run(t, "install-skill", "antigravity"); code != 0 || out != lines("antigravity: installed ("+skillFile+")") {
		t.Fatalf("install-skill: %d %q", code, out)
	}
	if code, out, _ = run(t, "uninstall-skill", "antigravity"); code != 0 || out != lines("antigravity: uninstalled ("+skillFile+")") {
		t.Fatalf("uninstall-skill: %d %q", code, out)
	}
	mustNotExist(t, filepath.Join(dir, "skills"))

	// Not JSON: refused, nothing written.
	broken := "{\n  \"mcpServers\": {\n  oops\n}\n"
	if err := os.WriteFile(config, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"install", "uninstall"} {
		code, out, errOut := run(t, op, "antigravity")
		if code != 1 || !strings.HasPrefix(out, "antigravity: failed (cannot read "+config+": not valid JSON") ||
			!strings.HasPrefix(errOut, "stick: harness_error: "+op+" failed for antigravity: cannot read "+config) ||
			!strings.Contains(errOut, "hint: fix the JSON of "+config) || readFile(t, config) != broken {
			t.Fatalf("%s on broken JSON: %d %q %q", op, code, out, errOut)
		}
	}
}
