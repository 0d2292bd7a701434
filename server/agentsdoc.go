package server

import (
	"bytes"
	_ "embed"
	"net/http"
	"strconv"
	"strings"
	"text/template"
)

// agentsPath is where the hub serves the instructions a team gives its
// agents.
const agentsPath = "/agents.md"

// agentsTemplate is /agents.md: how an agent reaches the hub, gets and
// sends a token, and takes part in a session with a curl line for every
// step, and with MCP.
//
//go:embed agents.md.tmpl
var agentsTemplate string

// agentsDoc holds what /agents.md says of the hub.
type agentsDoc struct {
	// URL is the hub's public URL; API and MCP the URLs of its JSON API
	// and of MCP.
	URL, API, MCP string
}

var agentsTmpl = template.Must(template.New("agents.md").Funcs(template.FuncMap{"sh": shellQuote, "code": mdCode}).Parse(agentsTemplate))

// agentsMarkdown makes /agents.md for the hub whose public URL is url.
// The URL appears in prose as markdown code and in the shell as one
// single-quoted word, so no character of it can end either.
func agentsMarkdown(url string) ([]byte, error) {
	var b bytes.Buffer
	err := agentsTmpl.Execute(&b, agentsDoc{URL: url, API: url + apiPrefix, MCP: url + "/mcp"})
	return b.Bytes(), err
}

// installLine is the command line that registers the proxy for the hub
// whose public URL is url with every harness of a machine, the URL one
// word of the shell.
func installLine(url string) string { return "stick install --all --server " + shellQuote(url) }

// shellQuote quotes s as one word of a POSIX shell: in single quotes,
// each single quote of s written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// mdCode writes s as markdown inline code: between runs of backticks
// longer than any in s, with a space inside them when s begins or ends
// with a backtick.
func mdCode(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// serveAgents answers /agents.md. It needs no token: it holds no secret
// (its token is a placeholder), and a team fetches it to give its agents
// before they have one.
func (s *Server) serveAgents(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	agents := s.pub().agents
	w.Header().Set("Content-Length", strconv.Itoa(len(agents)))
	_, _ = w.Write(agents)
}
