package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stickhq/stick/internal/testkit"
)

// 'stick mcp --help' and the README register stick with each harness the
// same way, and the same way 'stick install' does.
func TestMCPHelpMatchesREADME(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, help, _ := run(t, "mcp", "--help")
	if code != 0 {
		t.Fatalf("stick mcp --help: exit %d", code)
	}
	row := regexp.MustCompile("(?m)^\\| [^|]+ \\| `((?:claude|codex|gemini) mcp add [^`]+)` \\|")
	rows := row.FindAllStringSubmatch(string(readme), -1)
	if len(rows) != 3 {
		t.Fatalf("the README's registration table has %d harness commands, want 3", len(rows))
	}
	for _, r := range rows {
		if !strings.Contains(help, "  "+r[1]+" ") {
			t.Errorf("stick mcp --help does not register as the README does: %q\n%s", r[1], help)
		}
	}
	if !strings.Contains(help, "stick install opencode") {
		t.Errorf("stick mcp --help does not say how OpenCode is registered:\n%s", help)
	}
}

// 'stick mcp' answers initialize before its database is open. A data
// directory it cannot use no longer stops it at start: it says why on
// stderr, and every tool call answers with the coded error the command
// used to exit with, message and hint alike.
func TestMCPUnusableDataDirIsEveryToolCallsError(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(data, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := "TALKING_STICK_DATA_DIR=" + data
	oneShot := runBin(t, testkit.Repo(t), []string{env}, "list")
	if oneShot.code == 0 || !strings.Contains(oneShot.stderr, "data_dir_unusable") {
		t.Fatalf("stick list with a file for a data directory: exit %d\n%s", oneShot.code, oneShot.stderr)
	}
	cmd := exec.Command(stickBin, "mcp")
	cmd.Dir = testkit.Repo(t)
	cmd.Env = append(os.Environ(), env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewReader(stdout)
	ask := func(msg string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %s: %v\n%s", msg, err, stderr.String())
		}
		return line
	}
	if init := ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); !strings.Contains(init, "protocolVersion") {
		t.Fatalf("initialize: %s", init)
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	var r rawResult
	if line := ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_rooms","arguments":{}}}`); json.Unmarshal([]byte(line), &r) != nil {
		t.Fatalf("list_rooms: %s", line)
	}
	// The one-shot command prints "stick: data_dir_unusable: <message>".
	msg := strings.TrimPrefix(strings.SplitN(oneShot.stderr, "\n", 2)[0], "stick: data_dir_unusable: ")
	if e := r.Result.StructuredContent.Error; !r.Result.IsError || e.Code != "data_dir_unusable" || e.Message != msg {
		t.Fatalf("list_rooms: want data_dir_unusable %q, got %+v", msg, r)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("stick mcp at the end of stdin: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stick: data_dir_unusable: "+msg) || !strings.Contains(stderr.String(), "every tool call fails") {
		t.Fatalf("stderr does not say why the tools fail:\n%s", stderr.String())
	}
}
