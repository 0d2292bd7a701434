package cli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The built binary refuses to serve where other hosts reach it without a
// token, as a usage error that says what to do, and makes no database.
func TestBinaryServeOffLoopback(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	r := b.run(t, "serve", "--addr", "0.0.0.0:0")
	if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "stick: invalid_argument: stick serve will not listen on") ||
		!strings.Contains(r.stderr, "hint: make a token first ('stick token create NAME --role agent')") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// The built binary serves on loopback from $STICK_ADDR, and SIGTERM stops
// it: exit 0, "stopped".
func TestBinaryServeStops(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	cmd, lines, url := startServe(t, append(b.env, "STICK_ADDR=127.0.0.1:0"))
	resp, err := http.Get(url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
	// The next line names the page; it opens, as HTML.
	if !lines.Scan() {
		t.Fatal("stick serve printed one line")
	}
	page, _, ok := strings.Cut(strings.TrimPrefix(lines.Text(), "stick serve: open "), " in a browser")
	if !ok || page != url+"/" {
		t.Fatalf("second line %q does not name the page %s/", lines.Text(), url)
	}
	resp, err = http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("the page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for lines.Scan() {
		rest = append(rest, lines.Text())
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stick serve after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("stick serve did not stop")
	}
	if !strings.Contains(strings.Join(rest, "\n"), "stick serve: stopped") {
		t.Fatalf("stdout after SIGTERM: %q", rest)
	}
}

// --data-dir serves the database of that directory, whatever
// $TALKING_STICK_DATA_DIR says: its tokens are the ones asked for, and the
// directory of the environment gets no database.
func TestBinaryServeDataDir(t *testing.T) {
	t.Parallel()
	b := newBinRoom(t)
	var tok struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal([]byte(b.ok(t, "token", "create", "team", "--json")), &tok); err != nil || tok.Secret == "" {
		t.Fatalf("token create: %v %+v", err, tok)
	}
	elsewhere := t.TempDir()
	_, _, url := startServe(t, []string{"TALKING_STICK_DATA_DIR=" + elsewhere}, "--addr", "127.0.0.1:0", "--data-dir", b.data)
	status := func(token string) int {
		req, _ := http.NewRequest(http.MethodGet, url+"/api/v1/rooms", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(""); got != http.StatusUnauthorized {
		t.Fatalf("without a token: %d, want 401 (the tokens of --data-dir)", got)
	}
	if got := status(tok.Secret); got != http.StatusOK {
		t.Fatalf("with the token made in --data-dir: %d", got)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("the environment's data directory got %d entries", len(entries))
	}
}

// startServe starts the built binary's 'stick serve' with env added to
// this process's environment and args, and returns it, its standard
// output past the first line, and the loopback URL that line names.
func startServe(t *testing.T, env []string, args ...string) (*exec.Cmd, *bufio.Scanner, string) {
	t.Helper()
	cmd := exec.Command(stickBin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatal("stick serve printed nothing")
	}
	url, _, ok := strings.Cut(strings.TrimPrefix(lines.Text(), "stick serve: listening on "), " ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", lines.Text())
	}
	return cmd, lines, url
}
