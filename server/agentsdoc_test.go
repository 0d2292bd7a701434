package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// /agents.md is made from the public URL of the hub's settings: another
// URL, other instructions. It is served without a token on a hub that has
// tokens, as markdown.
func TestAgentsFollowsThePublicURL(t *testing.T) {
	svc := testService(t)
	for _, public := range []string{"https://stick.example.com", "https://example.org/teams/stick/"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(context.Background(), Config{Service: svc, Auth: svc, PublicURL: public}, ln)
		ln.Close()
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+agentsPath, nil)
		s.Handler().ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/markdown") {
			t.Fatalf("%s: %d %s\n%s", public, w.Code, w.Header().Get("Content-Type"), body)
		}
		url := strings.TrimSuffix(public, "/")
		for _, want := range []string{"export STICK_HUB='" + url + "'\n", "`" + url + "/api/v1`", "`" + url + "/mcp`"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: /agents.md lacks %q", public, want)
			}
		}
		if strings.Contains(body, "127.0.0.1") {
			t.Errorf("%s: /agents.md names the listening address, not the public URL", public)
		}
	}
}

// Whatever the URL holds, the shell reads the export line as the URL
// itself, and the markdown shows it as one piece of code.
func TestAgentsQuotesTheURL(t *testing.T) {
	for _, url := range []string{
		"http://127.0.0.1:7420",
		"https://example.com/o'brien/$(touch pwned)/`id`/a;b&c|d",
		"https://example.com/''/\"x\"/$HOME/${PATH}/*?",
	} {
		doc, err := agentsMarkdown(url)
		if err != nil {
			t.Fatal(err)
		}
		line := regexp.MustCompile(`(?m)^export STICK_HUB=.*$`).FindString(string(doc))
		if line == "" {
			t.Fatalf("%s: no export line", url)
		}
		dir := t.TempDir()
		cmd := exec.Command("sh", "-c", line+`; printf %s "$STICK_HUB"`)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil || string(out) != url {
			t.Errorf("the shell reads %q as %q (%v), want %q", line, out, err, url)
		}
		if !strings.Contains(string(doc), "- The hub: "+mdCode(url)+"\n") {
			t.Errorf("%s: the URL is not one piece of code", url)
		}
	}
	for s, want := range map[string]string{
		"plain": "`plain`", "a`b": "``a`b``", "``x": "``` ``x ```", "x`": "`` x` ``",
	} {
		if got := mdCode(s); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", s, got, want)
		}
	}
}
