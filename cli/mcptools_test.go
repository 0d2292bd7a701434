package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/mcpserver"
)

// 'stick install --tools core' registers 'stick mcp --tools=core' with every
// harness; installing again changes nothing; installing without --tools
// goes back to plain 'stick mcp'.
func TestInstallToolsCore(t *testing.T) {
	m := newMachine(t, "claude", "codex", "gemini", "opencode", "stick")
	s := filepath.Join(m.bin, "stick")
	config := filepath.Join(m.xdg, "opencode", "opencode.json")
	code, out, errOut := run(t, "install", "--all", "--tools", "core")
	if want := lines(
		"claude-code: installed (claude mcp add --scope user stick -- "+s+" mcp --tools=core)",
		guardLine(m, "installed"),
		"codex: installed (codex mcp add stick -- "+s+" mcp --tools=core)",
		"gemini: installed (gemini mcp add --scope user stick "+s+" mcp --tools=core)",
		"opencode: installed ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("install --tools core: %d %q\n got %q\nwant %q", code, errOut, out, want)
	}
	m.wantCalls(t,
		"claude [mcp] [get] [stick]",
		"claude [mcp] [add] [--scope] [user] [stick] [--] ["+s+"] [mcp] [--tools=core]",
		"codex [mcp] [get] [--json] [stick]",
		"codex [mcp] [add] [stick] [--] ["+s+"] [mcp] [--tools=core]",
		"gemini [mcp] [add] [--scope] [user] [stick] ["+s+"] [mcp] [--tools=core]")
	if got := readFile(t, config); !strings.Contains(got, `"command": ["`+s+`", "mcp", "--tools=core"]`) {
		t.Fatalf("opencode config:\n%s", got)
	}

	code, out, _ = run(t, "install", "--all", "--tools=core")
	if want := lines(
		"claude-code: already installed ("+s+" mcp --tools=core)",
		guardLine(m, "already installed"),
		"codex: already installed ("+s+" mcp --tools=core)",
		"gemini: already installed ("+s+" mcp --tools=core)",
		"opencode: already installed ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("second install: %d\n got %q\nwant %q", code, out, want)
	}

	code, out, _ = run(t, "install", "--all")
	if want := lines(
		"claude-code: replaced "+s+" mcp --tools=core (claude mcp remove --scope user stick; claude mcp add --scope user stick -- "+s+" mcp)",
		guardLine(m, "already installed"),
		"codex: replaced "+s+" mcp --tools=core (codex mcp remove stick; codex mcp add stick -- "+s+" mcp)",
		"gemini: replaced "+s+" mcp --tools=core (gemini mcp remove --scope user stick; gemini mcp add --scope user stick "+s+" mcp)",
		"opencode: replaced "+s+" mcp --tools=core ("+config+")",
		m.agySkipped(), grokSkipped,
	); code != 0 || out != want {
		t.Fatalf("install without --tools: %d\n got %q\nwant %q", code, out, want)
	}
	if got := readFile(t, config); !strings.Contains(got, `"command": ["`+s+`", "mcp"]`) {
		t.Fatalf("opencode config:\n%s", got)
	}

	code, _, errOut = run(t, "install", "--all", "--tools", "few")
	if code != 2 || !strings.Contains(errOut, `--tools: unknown tool set "few": the tool sets are all, core`) {
		t.Fatalf("install --tools few: %d %q", code, errOut)
	}
}

// The registered command really serves the core tools, and says so in its
// instructions; a tool set it does not know is a usage error.
func TestBinaryMCPToolsCore(t *testing.T) {
	cmd := exec.Command(stickBin, "mcp", "--tools=core")
	cmd.Env = append(os.Environ(), "TALKING_STICK_DATA_DIR="+t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "core-test", Version: "1.0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	want := mcpserver.CoreToolNames()
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("stick mcp --tools=core offers %v, want %v", names, want)
	}
	if in := cs.InitializeResult().Instructions; in != mcpserver.Instructions(mcpserver.CoreTools) {
		t.Fatalf("instructions of stick mcp --tools=core:\n%s", in)
	}
	r := runBin(t, "", nil, "mcp", "--tools", "few")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown tool set "few"`) {
		t.Fatalf("stick mcp --tools few: %d %q", r.code, r.stderr)
	}
}

// doctor counts a registration with the core tools as registered.
func TestDoctorToolsCore(t *testing.T) {
	m := newMachine(t, "codex")
	old := executable
	executable = func() (string, error) { return stickBin, nil }
	t.Cleanup(func() { executable = old })
	t.Setenv("TALKING_STICK_DATA_DIR", t.TempDir())
	if code, out, errOut := run(t, "install", "codex", "--tools", "core", "--command", stickBin); code != 0 {
		t.Fatalf("install --tools core: %d %s%s", code, out, errOut)
	}
	_, checks := doctor(t)
	wantCheck(t, checks, "codex", checkOK, "stick mcp registered: "+stickBin+" mcp --tools=core")
	m.register(t, "codex", "/elsewhere/stick")
	_, checks = doctor(t)
	wantCheck(t, checks, "codex", checkFail, "registered with another command: /elsewhere/stick mcp")
}
