package cli

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/proxy"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"github.com/stickhq/stick/wake"
)

// serveProxy is 'stick mcp --server URL': a proxy for the hub at hub,
// serving the harness over stdin and stdout (see package proxy), which
// wakes the harness's session through the transports its environment
// names (wake.FromEnv), as a local 'stick mcp' does.
func serveProxy(cmd *cobra.Command, version, hub, tokenFile string, tools mcpserver.ToolSet) error {
	tuneGC(cmd.Context())
	stderr := cmd.ErrOrStderr()
	token, err := readToken(tokenFile, stderr)
	if err != nil {
		return err
	}
	harness, err := identity.ServerHarness(identity.Facts{})
	if err != nil {
		fmt.Fprintf(stderr, "stick mcp: %v; this proxy's own process stands for the harness\n", err)
	}
	// A data directory that cannot be resolved only keeps claims within
	// this process: the proxy keeps no database.
	dataDir, _ := store.DataDir()
	p, err := proxy.New(proxy.Config{Server: hub, Token: token, Harness: harness, DataDir: dataDir, Getenv: os.Getenv,
		Tools: tools, Version: version, Log: stderr, Wake: wake.FromEnv(os.Getenv)})
	if err != nil {
		return err
	}
	if strings.HasPrefix(hub, "http://") && token != "" && !loopbackURL(hub) {
		fmt.Fprintf(stderr, "stick mcp: %s is plain HTTP: the token crosses the network unencrypted; serve the hub over HTTPS\n", hub)
	}
	return serveFailure(p.Run(cmd.Context(), &mcpserver.StdioTransport{}))
}

// readToken reads the hub's token from path, else from $STICK_TOKEN; ""
// when neither is given (a loopback hub without tokens needs none). A
// token file that others may read is used, with a warning on w.
func readToken(path string, w io.Writer) (string, error) {
	if path == "" {
		return strings.TrimSpace(os.Getenv(tokenEnv)), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", stick.Errorf(stick.CodeInvalidArgument, "cannot read the token file: %v", err).With("field", "token-file").
			WithHint("give the file that holds the token 'stick token create' printed on the hub's host")
	}
	token := strings.TrimSpace(string(b))
	if token == "" || strings.ContainsAny(token, "\r\n") {
		return "", stick.Errorf(stick.CodeInvalidArgument, "the token file %s does not hold one token on one line", path).With("field", "token-file").
			WithHint("write the token 'stick token create' printed, and nothing else, into the file")
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		fmt.Fprintf(w, "stick mcp: the token file %s may be read by others (mode %04o); make it yours alone: chmod 600 %s\n", path, fi.Mode().Perm(), path)
	}
	return token, nil
}

// loopbackURL reports whether raw is a URL of this host's loopback.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return strings.EqualFold(host, "localhost")
}
