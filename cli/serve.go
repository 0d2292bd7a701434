package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/user"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/server"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// The environment variables of 'stick serve', each the default of a flag.
const (
	addrEnv      = "STICK_ADDR"
	tlsCertEnv   = "STICK_TLS_CERT"
	tlsKeyEnv    = "STICK_TLS_KEY"
	publicURLEnv = "STICK_PUBLIC_URL"
)

// defaultAddr is where 'stick serve' listens by default: this host only.
const defaultAddr = "127.0.0.1:7420"

// newServe is 'stick serve': the hub, one HTTP server over the store for
// members on other hosts.
func newServe(version string) *cobra.Command {
	var addr, cert, key, public, dataDir string
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--tls-cert FILE --tls-key FILE] [--public-url URL] [--data-dir DIR]",
		Short: "Run the hub: the rooms of this host's database over HTTP, for members on other hosts",
		Long: `Run the hub: one HTTP server over the database (the one every other command
uses) that members on other hosts reach. It serves a JSON API at /api/v1 for
curl and scripts (its OpenAPI document is /api/v1/openapi.json), /healthz and
/metrics, and logs one JSON line per request on standard error.

On a loopback address (the default, ` + defaultAddr + `) and with no token made,
it answers without a token, as the user who runs it: members it joins are
named <client>@<user>. With tokens ('stick token create'), every request but
/healthz needs 'Authorization: Bearer <token>'. On any other address it
refuses to start without a token.

Each flag may be given in the environment instead: $` + addrEnv + `, $` + tlsCertEnv + `,
$` + tlsKeyEnv + `, $` + publicURLEnv + ` and $` + store.DataDirEnv + ` (which every command
reads: make the hub's tokens with it set alike). Ctrl-C or SIGTERM stops it gracefully: it stops
accepting, ends long polls at once and lets the writes in flight finish.`,
		Example: "  stick serve\n" +
			"  stick serve --addr 0.0.0.0:7420 --public-url https://stick.example.com   # behind a TLS proxy\n" +
			"  stick serve --addr :7420 --tls-cert cert.pem --tls-key key.pem\n" +
			"  curl -s localhost:7420/api/v1/rooms",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, f := range []struct {
				flag, env string
				v         *string
			}{{"addr", addrEnv, &addr}, {"tls-cert", tlsCertEnv, &cert}, {"tls-key", tlsKeyEnv, &key}, {"public-url", publicURLEnv, &public}} {
				if v := os.Getenv(f.env); v != "" && !cmd.Flags().Changed(f.flag) {
					*f.v = v
				}
			}
			return serve(cmd, version, server.Config{TLSCert: cert, TLSKey: key, PublicURL: public}, addr, dataDir)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", defaultAddr, "the address to listen on (or $"+addrEnv+")")
	f.StringVar(&cert, "tls-cert", "", "serve HTTPS with this PEM certificate (or $"+tlsCertEnv+")")
	f.StringVar(&key, "tls-key", "", "the PEM key of --tls-cert (or $"+tlsKeyEnv+")")
	f.StringVar(&public, "public-url", "", "the URL clients reach the hub by (or $"+publicURLEnv+"; default http(s)://ADDR)")
	f.StringVar(&dataDir, "data-dir", "", "the data directory whose database the hub serves (or $"+store.DataDirEnv+"; default: see 'stick where')")
	return cmd
}

// serve opens the store, listens on addr and serves the hub until the
// command's context ends (a signal), then stops it gracefully.
func serve(cmd *cobra.Command, version string, cfg server.Config, addr, dataDir string) error {
	tuneGC(cmd.Context())
	open := wiring().Open
	if dataDir != "" {
		dir, err := filepath.Abs(dataDir)
		if err != nil {
			return stick.Errorf(stick.CodeInvalidArgument, "--data-dir %q: %v", dataDir, err).With("field", "data-dir")
		}
		open = func() (stick.Store, error) { return wiring().OpenIn(dir) }
	}
	st, err := open()
	if err != nil {
		return err
	}
	defer st.Close()
	// Members behind proxies ('stick mcp --server') are judged by their
	// proxies' liveness streams, every other process as on any host: on a
	// database server, by the marks of processes of other hosts too.
	// Hubs on one database server mark the sessions whose streams they
	// hold, so that each judges the others' by those marks.
	hubOpts := []liveness.HubOption{liveness.WithFallback(storeLiveness(st))}
	if m, ok := storeurl.Marker(st); ok {
		hubOpts = append(hubOpts, liveness.WithMarker(m))
	}
	live := liveness.NewHub(nil, hubOpts...)
	svc, err := newService(st, stick.WithLiveness(live))
	if err != nil {
		return err
	}
	cfg.Service, cfg.Store, cfg.Version, cfg.Liveness = svc, st, version, live
	cfg.Local = stick.Principal{Name: localUser(), Role: stick.AccessOperator}
	cfg.Log = slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
	// Tokens live in the store ('stick token create'): the hub checks them
	// and serves each principal through a Service restricted to its role
	// and rooms, over the JSON API and MCP alike.
	cfg.Auth, cfg.ServiceFor, cfg.AnyCredential = svc, svc.As, anyToken(svc)
	mcp, err := mcpserver.NewHTTP(mcpserver.HTTPConfig{Service: svc, ServiceFor: svc.As, Version: version,
		DisableLocalhostProtection: true, Logger: cfg.Log})
	if err != nil {
		return err
	}
	defer mcp.Close()
	cfg.MCP = mcp
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return stick.Errorf(stick.CodeInvalidArgument, "cannot listen on %s: %v", addr, err).With("field", "addr").
			WithHint("choose another address with --addr, or stop the program that listens there")
	}
	srv, err := server.New(cmd.Context(), cfg, ln)
	if err != nil {
		ln.Close()
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "stick serve: listening on %s (public URL %s)\n", srv.ListenURL(), srv.PublicURL())
	fmt.Fprintf(out, "stick serve: open %s/ in a browser to watch the rooms; %s/connect shows how to connect an agent\n", srv.PublicURL(), srv.PublicURL())
	if open, err := srv.Open(cmd.Context()); err == nil && open {
		fmt.Fprintf(out, "stick serve: no token exists, so requests need none and act as %s (loopback only; 'stick token create NAME' to require tokens)\n", cfg.Local.Name)
	}
	if err := srv.Serve(cmd.Context()); err != nil {
		return err
	}
	fmt.Fprintln(out, "stick serve: stopped")
	return nil
}

// anyToken reports whether the store holds a token that works: a hub
// with none answers without tokens on loopback, and refuses to start
// elsewhere.
func anyToken(svc *stick.Service) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		tokens, err := svc.ListTokens(ctx)
		if err != nil {
			return false, err
		}
		for _, t := range tokens {
			if t.State == stick.TokenActive {
				return true, nil
			}
		}
		return false, nil
	}
}

// localUser is the login of the user running the hub, who a request
// without a token acts as on a loopback hub without tokens.
func localUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "local"
}
