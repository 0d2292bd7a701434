package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stickhq/stick/stick"
)

// 'stick install --server URL --token-file PATH' registers the proxy for
// the hub with every harness, the token file as an absolute path; --dry-run
// says so and changes nothing; installing again changes nothing; and
// 'stick uninstall' removes it as it removes the local server.
func TestInstallServer(t *testing.T) {
	m := newMachine(t, "claude", "codex", "gemini", "opencode", "stick")
	s := filepath.Join(m.bin, "stick")
	config := filepath.Join(m.xdg, "opencode", "opencode.json")
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(token))
	flags := "--server=https://stick.example.com --token-file=" + token
	// each is what install says of every harness, with its verb.
	each := func(verb string) string {
		return lines(
			"claude-code: "+verb+" (claude mcp add --scope user stick -- "+s+" mcp "+flags+")",
			"codex: "+verb+" (codex mcp add stick -- "+s+" mcp "+flags+")",
			"gemini: "+verb+" (gemini mcp add --scope user stick "+s+" mcp "+flags+")",
			"opencode: "+verb+" ("+config+")",
			m.agySkipped(), grokSkipped,
		)
	}
	code, out, errOut := run(t, "install", "--all", "--server", "https://stick.example.com", "--token-file", "token", "--dry-run")
	if want := each("would install"); code != 0 || out != want {
		t.Fatalf("install --server --dry-run: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	m.wantCalls(t, "claude [mcp] [get] [stick]", "codex [mcp] [get] [--json] [stick]")
	mustNotExist(t, filepath.Join(m.xdg, "opencode"))

	code, out, errOut = run(t, "install", "--all", "--server", "https://stick.example.com", "--token-file", token)
	if want := each("installed"); code != 0 || out != want {
		t.Fatalf("install --server: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	args := "[--server=https://stick.example.com] [--token-file=" + token + "]"
	m.wantCalls(t,
		"claude [mcp] [get] [stick]",
		"claude [mcp] [add] [--scope] [user] [stick] [--] ["+s+"] [mcp] "+args,
		"codex [mcp] [get] [--json] [stick]",
		"codex [mcp] [add] [stick] [--] ["+s+"] [mcp] "+args,
		"gemini [mcp] [add] [--scope] [user] [stick] ["+s+"] [mcp] "+args)
	if got := readFile(t, config); !strings.Contains(got, `"command": ["`+s+`", "mcp", "--server=https://stick.example.com", "--token-file=`+token+`"]`) {
		t.Fatalf("opencode config:\n%s", got)
	}

	code, out, _ = run(t, "install", "--all", "--server=https://stick.example.com", "--token-file="+token)
	if want := lines(
		"claude-code: already installed ("+s+" mcp "+flags+")",
		"codex: already installed ("+s+" mcp "+flags+")",
		"gemini: already installed ("+s+" mcp "+flags+")",
		"opencode: already installed ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("second install: %d\n got %q\nwant %q", code, out, want)
	}
	m.calls(t)

	code, out, _ = run(t, "uninstall", "--all")
	if want := lines(
		"claude-code: uninstalled (claude mcp remove --scope user stick)",
		"codex: uninstalled (codex mcp remove stick)",
		"gemini: uninstalled (gemini mcp remove --scope user stick)",
		"opencode: uninstalled ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("uninstall: %d\n got %q\nwant %q", code, out, want)
	}
}

// An install for a hub is refused, before anything is looked up, with a
// token on the command line, a token file without --server, a URL that is
// not http or https, or a token file that is not there.
func TestInstallServerRefusals(t *testing.T) {
	m := newMachine(t, "claude", "stick")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", "https://hub", "--token", "secret"}, "'ps'"},
		{[]string{"--token-file", "/etc/hostname"}, "--token-file goes with --server"},
		{[]string{"--server", "ftp://hub"}, "not an http or https URL"},
		{[]string{"--server", "https://hub", "--token-file", filepath.Join(t.TempDir(), "none")}, "--token-file"},
	} {
		code, _, errOut := run(t, append([]string{"install", "claude-code"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "invalid_argument") {
			t.Errorf("install %v: %d %q", tc.args, code, errOut)
		}
	}
	m.wantCalls(t)
}

// The proxy's token comes from its file, trimmed, else from $STICK_TOKEN;
// a file others may read is used with a warning; an empty file, one of
// two lines, or none at all is refused, saying what to put there.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var warn bytes.Buffer
	if tok, err := readToken(write("mine", "  secret\n", 0o600), &warn); err != nil || tok != "secret" || warn.Len() != 0 {
		t.Fatalf("an owner-only file: %q %v %q", tok, err, warn.String())
	}
	if tok, err := readToken(write("shared", "secret\n", 0o644), &warn); err != nil || tok != "secret" || !strings.Contains(warn.String(), "chmod 600") {
		t.Fatalf("a file others may read: %q %v %q", tok, err, warn.String())
	}
	for _, p := range []string{write("empty", "\n", 0o600), write("two", "a\nb\n", 0o600), filepath.Join(dir, "none")} {
		if _, err := readToken(p, &warn); stick.ErrorCode(err) != stick.CodeInvalidArgument {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
	t.Setenv(tokenEnv, " from-env ")
	if tok, err := readToken("", &warn); err != nil || tok != "from-env" {
		t.Fatalf("from the environment: %q %v", tok, err)
	}
}

// 'stick mcp' refuses --token, saying why, and --token-file without
// --server.
func TestMCPTokenFlags(t *testing.T) {
	code, _, errOut := run(t, "mcp", "--server", "http://127.0.0.1:1", "--token", "secret")
	if code == 0 || !strings.Contains(errOut, "'ps'") || !strings.Contains(errOut, "--token-file") {
		t.Fatalf("--token: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "mcp", "--token-file", "/etc/hostname"); code == 0 || !strings.Contains(errOut, "--server") {
		t.Fatalf("--token-file alone: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "mcp", "--server", "ftp://hub"); code == 0 || !strings.Contains(errOut, "http or https") {
		t.Fatalf("a URL that is not http: %d %q", code, errOut)
	}
	for raw, want := range map[string]bool{"http://127.0.0.1:7420": true, "http://localhost:1": true, "http://[::1]:2": true,
		"http://hub.example": false, "https://10.0.0.1": false} {
		if loopbackURL(raw) != want {
			t.Errorf("loopbackURL(%q) = %v", raw, !want)
		}
	}
}

// 'stick install --database URL' (or with $STICK_DATABASE_URL) registers
// the server on that PostgreSQL database; a URL with a password, or one
// given with --server, is refused before anything is looked up, the
// password never shown.
func TestInstallDatabase(t *testing.T) {
	m := newMachine(t, "claude", "stick")
	s := filepath.Join(m.bin, "stick")
	db := "postgres://stick@db.example.com/stick?sslmode=verify-full"
	code, out, errOut := run(t, "install", "claude-code", "--database", db)
	// Shown as a shell would take it: the URL's '?' quoted.
	if want := lines("claude-code: installed (claude mcp add --scope user stick -- "+s+" mcp '--database="+db+"')", guardLine(m, "installed")); code != 0 || out != want {
		t.Fatalf("install --database: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	m.wantCalls(t, "claude [mcp] [get] [stick]", "claude [mcp] [add] [--scope] [user] [stick] [--] ["+s+"] [mcp] [--database="+db+"]")
	t.Setenv("STICK_DATABASE_URL", db)
	if code, out, _ = run(t, "install", "claude-code"); code != 0 || !strings.Contains(out, "already installed ("+s+" mcp '--database="+db+"')") {
		t.Fatalf("install with $STICK_DATABASE_URL: %d %q", code, out)
	}
	m.calls(t)
	t.Setenv("STICK_DATABASE_URL", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--database", "postgres://stick:s3cret-pw@db/stick"}, "~/.pgpass"},
		{[]string{"--database", "postgres://stick@db/stick?password=s3cret-pw"}, "holds a password"},
		{[]string{"--database", db, "--server", "https://hub"}, "a proxy uses its hub's database"},
		{[]string{"--database", "postgres://db/%zz"}, "not a valid PostgreSQL URL"},
	} {
		code, _, errOut := run(t, append([]string{"install", "claude-code"}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "invalid_argument") || strings.Contains(errOut, "s3cret-pw") {
			t.Errorf("install %v: %d %q", tc.args, code, errOut)
		}
	}
	m.wantCalls(t)
}
