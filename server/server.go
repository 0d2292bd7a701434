package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stickhq/stick/liveness"
	"github.com/stickhq/stick/stick"
)

// Config wires a hub.
type Config struct {
	// Service is the protocol over the hub's store; required.
	Service *stick.Service
	// Store is that store, which /healthz reads to say it is reachable;
	// without it /healthz reads through Service.
	Store stick.Store
	// Auth checks bearer tokens; nil when the hub has none (then it
	// answers only on a loopback address, see Local).
	Auth Authenticator
	// AnyCredential reports whether any token could authenticate. A
	// loopback hub with none answers without a token, as Local; a hub on
	// any other address refuses to start without one. nil, with Auth
	// set, means there always is one.
	AnyCredential func(context.Context) (bool, error)
	// ServiceFor returns the Service a principal acts through: the hub's
	// Service restricted to the principal's role and rooms. nil serves
	// every principal through Service itself.
	ServiceFor func(stick.Principal) *stick.Service
	// Local is who a request without a token acts as on a loopback hub
	// without tokens: the user who runs the hub ('stick serve' names it
	// after the user's login, with the operator role and every room).
	Local stick.Principal
	// PublicURL is the URL clients reach the hub by (behind a reverse
	// proxy, the proxy's). It wins over the one the hub's operators set
	// on its page (stick.HubSettings); without either, it is
	// http(s)://<listening address>, with the host's name for an address
	// that is every address (0.0.0.0).
	PublicURL string
	// TLSCert and TLSKey are the files of the certificate and key to serve
	// HTTPS with; both or neither.
	TLSCert, TLSKey string
	// MCP, when set, is mounted at /mcp behind the hub's checks, with the
	// request's principal in its context (stick.PrincipalFrom).
	MCP http.Handler
	// Liveness, when set, is the liveness Service judges members by; the
	// hub takes the liveness streams of proxies ('stick mcp --server') at
	// liveness.Path and tells it of them. Without it that path answers
	// not_found, and members behind proxies are judged by their leases.
	Liveness *liveness.Hub
	// Log gets one line per request; default: discarded.
	Log *slog.Logger
	// Version is reported by /healthz.
	Version string
	// ShutdownGrace bounds how long writes in flight may take to finish
	// once the hub is told to stop (default 10 s).
	ShutdownGrace time.Duration
	// Now is the clock of the rate limit and the idempotency cache
	// (default time.Now).
	Now func() time.Time
}

// Server is one hub on one listener.
type Server struct {
	cfg      Config
	ln       net.Listener
	loopback bool
	// public is the public URL as it stands (see publicurl.go); publicMu
	// orders its refreshes.
	public   atomic.Pointer[public]
	publicMu sync.Mutex
	// listenURL is the URL of the listening address, named by the host's
	// name when it is every address; listenOrigins are its origins, and
	// the raw address's, which stay allowed whatever the public URL.
	listenURL     string
	listenOrigins []string
	log           *slog.Logger
	handler       http.Handler
	// page is the web page at /.
	page    http.Handler
	metrics *metrics
	limits  *limiter
	replays *replays
	// polls holds the services of the long polls in progress, which
	// stopping shuts down so they answer at once; stopping is set once
	// the hub is told to stop.
	pollMu   sync.Mutex
	polls    map[*poll]struct{}
	stopping bool
	// streamsDone is closed when the hub is told to stop, which ends every
	// liveness stream.
	streamsDone chan struct{}
}

// New makes the hub that will serve on ln. It refuses, with
// invalid_argument on addr, a listener other hosts can reach when no
// token exists: anyone could then act in every room. With TLS files, it
// loads them now, so a wrong file stops the start rather than the first
// request.
func New(ctx context.Context, cfg Config, ln net.Listener) (*Server, error) {
	if cfg.Service == nil {
		return nil, errors.New("server: Config.Service is required")
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "give both a TLS certificate and its key, or neither").With("field", "tls-cert").
			WithHint("pass --tls-cert FILE and --tls-key FILE together")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 10 * time.Second
	}
	if cfg.Local.Role == "" {
		cfg.Local.Role = stick.AccessOperator
	}
	if cfg.Local.Name == "" {
		cfg.Local.Name = "local"
	}
	s := &Server{cfg: cfg, ln: ln, log: cfg.Log, limits: newLimiter(cfg.Now), replays: newReplays(cfg.Now),
		polls: map[*poll]struct{}{}, streamsDone: make(chan struct{})}
	tcp, _ := ln.Addr().(*net.TCPAddr)
	s.loopback = tcp != nil && tcp.IP.IsLoopback()
	if !s.loopback {
		some := cfg.Auth != nil
		if some && cfg.AnyCredential != nil {
			var err error
			if some, err = cfg.AnyCredential(ctx); err != nil {
				return nil, err
			}
		}
		if !some {
			return nil, refuseOpen(ln.Addr())
		}
	}
	if err := s.setPublicURL(ctx); err != nil {
		return nil, err
	}
	var err error
	if cfg.TLSCert != "" {
		if _, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey); err != nil {
			return nil, stick.Errorf(stick.CodeInvalidArgument, "cannot load the TLS certificate %s and key %s: %v", cfg.TLSCert, cfg.TLSKey, err).
				With("field", "tls-cert").WithHint("give a PEM certificate (with its chain) and the PEM key that goes with it")
		}
	}
	s.metrics = newMetrics(countRooms(cfg.Service))
	if s.page, err = s.newPage(); err != nil {
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// refuseOpen is the refusal to listen on addr, which other hosts reach,
// without a token.
func refuseOpen(addr net.Addr) error {
	return stick.Errorf(stick.CodeInvalidArgument, "stick serve will not listen on %s without a token: other hosts reach that address, and anyone could act in every room", addr).
		With("field", "addr").
		WithHint("make a token first ('stick token create NAME --role agent') and give it to each member, or listen on a loopback address (--addr 127.0.0.1:7420)")
}

// ListenURL is the URL of the listener itself: http or https, and the
// address it listens on.
func (s *Server) ListenURL() string {
	if s.cfg.TLSCert != "" {
		return "https://" + s.ln.Addr().String()
	}
	return "http://" + s.ln.Addr().String()
}

// PublicURL is the URL clients reach the hub by, as it stands: the
// Config's, else the one its operators set (stick.HubSettings), else the
// listening address's.
func (s *Server) PublicURL() string { return s.pub().url }

// Open reports whether the hub answers requests without a token (see
// Config.AnyCredential).
func (s *Server) Open(ctx context.Context) (bool, error) { return s.open(ctx) }

// Handler is the hub's whole HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve serves until ctx ends, then stops gracefully: it stops accepting
// connections, ends every long poll at once (see stop), lets the requests
// in flight finish for up to Config.ShutdownGrace, and returns. It
// returns nil after a stop, or the error that ended serving.
func (s *Server) Serve(ctx context.Context) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		// Requests outlive ctx: a write in flight finishes after the
		// signal, and its own client alone may cancel it.
		BaseContext: func(net.Listener) context.Context { return context.Background() },
	}
	errc := make(chan error, 1)
	go func() {
		if s.cfg.TLSCert != "" {
			errc <- srv.ServeTLS(s.ln, s.cfg.TLSCert, s.cfg.TLSKey)
		} else {
			errc <- srv.Serve(s.ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	s.stop()
	grace, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	err := srv.Shutdown(grace)
	if errors.Is(err, context.DeadlineExceeded) {
		err = srv.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// poll is one long poll in progress: the service it waits in.
type poll struct{ svc *stick.Service }

// beginPoll registers a long poll in svc; it returns false once the hub is
// stopping, when no long poll may begin. end unregisters it.
func (s *Server) beginPoll(svc *stick.Service) (end func(), ok bool) {
	s.pollMu.Lock()
	defer s.pollMu.Unlock()
	if s.stopping {
		return nil, false
	}
	p := &poll{svc: svc}
	s.polls[p] = struct{}{}
	s.metrics.polls.Inc()
	return func() {
		s.pollMu.Lock()
		delete(s.polls, p)
		s.pollMu.Unlock()
		s.metrics.polls.Dec()
	}, true
}

// stop marks the hub stopping and shuts down the services of the long
// polls in progress and the hub's own: each long poll answers at once with
// what it has (wait: its not_yet; events: the page so far), which the
// hub marks with StoppingHeader.
func (s *Server) stop() {
	s.pollMu.Lock()
	if !s.stopping {
		close(s.streamsDone)
	}
	s.stopping = true
	polls := make([]*poll, 0, len(s.polls))
	for p := range s.polls {
		polls = append(polls, p)
	}
	s.pollMu.Unlock()
	s.cfg.Service.Shutdown()
	for _, p := range polls {
		p.svc.Shutdown()
	}
}

// beginStream registers a liveness stream; it returns false once the hub
// is stopping, when no stream may begin. end unregisters it.
func (s *Server) beginStream() (end func(), ok bool) {
	s.pollMu.Lock()
	defer s.pollMu.Unlock()
	if s.stopping {
		return nil, false
	}
	s.metrics.streams.Inc()
	return s.metrics.streams.Dec, true
}

// isStopping reports whether the hub was told to stop.
func (s *Server) isStopping() bool {
	s.pollMu.Lock()
	defer s.pollMu.Unlock()
	return s.stopping
}

// StoppingHeader marks an answer that a stopping hub cut short: a long
// poll that ended before its time with its usual "nothing yet" answer.
// Ask again after a moment, of the restarted hub.
const StoppingHeader = "X-Stick-Shutting-Down"

// shuttingDown is the refusal of a long poll begun while the hub stops.
func shuttingDown() error {
	return stick.Errorf(CodeShuttingDown, "the hub is shutting down").
		WithHint("ask again in a moment: of the hub once it is back, or of another one")
}
