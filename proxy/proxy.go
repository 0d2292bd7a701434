package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/mcpserver"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/wake"
)

// CodeHubUnreachable: the proxy could not reach the hub for as long as it
// retries a call (Config.RetryFor).
const CodeHubUnreachable stick.Code = "hub_unreachable"

// Config wires a Proxy.
type Config struct {
	// Server is the hub's URL (http or https, a path prefix allowed);
	// required.
	Server string
	// Token is the bearer token the proxy authenticates with; "" for a
	// loopback hub without tokens. It is never logged.
	Token string
	// Harness is the process that spawned the proxy (its parent, see
	// identity.ServerHarness): its exit is the member's, and its facts
	// name the session.
	Harness procid.Identity
	// DataDir is the host's data directory, where the connection's id is
	// claimed as 'stick mcp' claims it, so two proxies of one harness are
	// two members; "" claims within this process.
	DataDir string
	// Getenv reads the harness's environment (its session id); default
	// none.
	Getenv func(string) string
	// Tools is the set of tools offered; default mcpserver.AllTools.
	Tools mcpserver.ToolSet
	// Version is reported to the harness.
	Version string
	// Log receives what the proxy says of its connection to the hub
	// (connected, lost, connecting again); default: discarded.
	Log io.Writer
	// RetryFor bounds how long a call is retried while the hub cannot be
	// reached (default DefaultRetryFor).
	RetryFor time.Duration
	// Transport carries the proxy's HTTP requests (default
	// http.DefaultTransport).
	Transport http.RoundTripper
	// Wake are the ways the harness's session can be woken (see
	// wake.FromEnv), tried in order; none: it is not woken. After a join
	// the proxy registers their names in the room on the hub and
	// delivers the wakes the hub claims for the member (see wakers); a
	// transport's secret never leaves this process.
	Wake []wake.Registration
	// WakeOptions tune the deliveries.
	WakeOptions wake.Options
}

// DefaultRetryFor is how long a call is retried while the hub cannot be
// reached, by default: long enough for a hub to restart.
const DefaultRetryFor = time.Minute

// Backoff between tries to reach the hub: from minBackoff, doubling, up to
// maxBackoff, which stays well below the default proxy grace, so that a
// hub back from a restart hears from every live proxy within its grace.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 2 * time.Second
)

// goneWait bounds how long the proxy tries to tell the hub its harness
// exited, and harnessWait how long it waits, once its input has ended,
// for the harness's exit that usually follows.
const (
	goneWait    = 5 * time.Second
	harnessWait = 500 * time.Millisecond
)

// Proxy is one 'stick mcp --server': a stdio MCP server for one harness.
type Proxy struct {
	cfg  Config
	base string
	srv  *mcp.Server
	http *http.Client
	// readOnly says which tools only read: their calls are retried as
	// they are, the others with an Idempotency-Key.
	readOnly map[string]bool
	claims   *identity.Claims
	hub      hubConn
	live     *stream
	// wake runs the wake loops of the rooms the harness joined.
	wake wakers
	// progress maps the progress tokens of calls in flight to the
	// harness's session, which the hub's progress is passed on to.
	progress sync.Map

	// mu guards the naming below.
	mu sync.Mutex
	// conn is the connection's claimed id; client the harness's client;
	// session the session sent to the hub. All are set once, by name.
	conn    *identity.Connection
	client  identity.Client
	session string
	// named is closed once they are.
	named chan struct{}
	// refused is the hub's refusal of the credential, if it refused it.
	refused refusal
	// ctx is the life of Run, for the goroutines it starts: it ends once
	// Run is over (see Run), not at once when Run's context does.
	ctx context.Context
}

// New builds a proxy for the hub at cfg.Server. It fails with
// invalid_argument on a URL that is not an http or https URL, or an
// unknown tool set.
func New(cfg Config) (*Proxy, error) {
	u, err := url.Parse(cfg.Server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "the hub's URL %s is not an http or https URL", stick.Quote(cfg.Server)).
			With("field", "server").WithHint("give the hub's URL, such as https://stick.example.com or http://127.0.0.1:7420")
	}
	tools, err := mcpserver.ToolList(cfg.Tools)
	if err != nil {
		return nil, err
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.RetryFor <= 0 {
		cfg.RetryFor = DefaultRetryFor
	}
	if cfg.Transport == nil {
		cfg.Transport = http.DefaultTransport
	}
	if cfg.Version == "" {
		cfg.Version = "(devel)"
	}
	p := &Proxy{cfg: cfg, base: strings.TrimSuffix(u.String(), "/"), readOnly: map[string]bool{},
		claims: identity.NewClaims(cfg.DataDir), named: make(chan struct{})}
	p.http = &http.Client{Transport: &transport{p: p, base: cfg.Transport}}
	p.hub.p = p
	p.wake.p = p
	p.live = newStream(p)
	set, _ := mcpserver.ParseToolSet(string(cfg.Tools))
	p.srv = mcp.NewServer(&mcp.Implementation{Name: "stick", Title: "stick: take turns in a shared workspace", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: mcpserver.ProxyInstructions(set), Capabilities: &mcp.ServerCapabilities{},
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) { p.name(req.Session) }})
	for _, t := range tools {
		p.readOnly[t.Name] = t.Annotations != nil && t.Annotations.ReadOnlyHint
		p.srv.AddTool(t, p.forward)
	}
	return p, nil
}

// Run serves the harness over t until its input ends, its process exits
// or ctx ends. When the harness exits, the proxy tells the hub at once, so
// the room sees its member gone as it would a local one's. When only its
// input ends (the harness may start a new proxy in the same session), it
// waits a moment for the harness's exit, and otherwise leaves the hub to
// judge the member by its grace.
func (p *Proxy) Run(ctx context.Context, t mcp.Transport) error {
	// The harness's watch and the liveness stream outlive ctx by the
	// moment Run waits for the harness at the end: a harness that stops
	// its server (a signal, its input closed) and then exits is said gone
	// at once, as when it exits first.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	defer endLife()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.ctx = life
	defer p.release()
	exited := watchHarness(life, p.cfg.Harness)
	ss, err := p.srv.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-exited:
		p.harnessExited()
		_ = ss.Close()
		err = <-ended
	case err = <-ended:
	case <-ctx.Done():
		_ = ss.Close()
		err = <-ended
	}
	p.wake.stopAll()
	// A harness that exits closes its pipes, or stops its servers, a
	// moment before it is gone: wait that moment, to say it at once.
	select {
	case <-exited:
		p.harnessExited()
	case <-time.After(harnessWait):
	}
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// release ends the wake loops and the stream, and gives the claimed id
// up.
func (p *Proxy) release() {
	p.wake.stopAll()
	p.hub.close()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		p.conn.Release()
	}
}

// harnessExited tells the hub the harness exited, waiting at most
// goneWait for the word to reach it.
func (p *Proxy) harnessExited() {
	select {
	case <-p.named:
	default:
		return // it never called: the hub has no member of it
	}
	if p.live.saidGone() {
		return
	}
	p.logf("the harness (%s) exited; telling the hub", p.cfg.Harness)
	p.live.sayGone(goneWait)
}

// name names the connection of ss at its first use, as 'stick mcp' names
// it (identity.Claims.NameConnection), and starts the liveness stream.
func (p *Proxy) name(ss *mcp.ServerSession) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		return nil
	}
	var client identity.Client
	if ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			client = identity.Client{Name: ip.ClientInfo.Name, Version: ip.ClientInfo.Version}
		}
	}
	if client.Name == "" {
		client.Name = "mcp"
	}
	conn, err := p.claims.NameConnection(client, p.cfg.Harness, identity.SessionID(p.cfg.Getenv))
	if err != nil {
		return err
	}
	p.conn, p.client, p.session = conn, client, identity.ProxySession(conn).String()
	close(p.named)
	go p.live.hold(p.ctx)
	return nil
}

// names returns the harness's client and its session, once named.
func (p *Proxy) names() (identity.Client, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client, p.session
}

// forward is every tool's handler: it sends the call to the hub and
// answers with the hub's result. A call that cannot reach the hub, or
// whose answer was lost, is sent again, with backoff, for up to
// Config.RetryFor; a write with the same Idempotency-Key each time, so
// the hub does it once. A refused credential is answered at once with
// the hub's refusal, and a hub out of reach, once RetryFor is over, with
// hub_unreachable.
func (p *Proxy) forward(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := p.name(req.Session); err != nil {
		return mcpserver.ErrorResult(err), nil
	}
	if err := p.live.awaitReady(ctx, p.cfg.RetryFor); err != nil {
		return p.failed(ctx, err)
	}
	tool := req.Params.Name
	var answer *mcp.CallToolResult
	ended := p.wake.calling(tool, req.Params.Arguments)
	defer func() { ended(answer) }()
	params := &mcp.CallToolParams{Name: tool, Arguments: req.Params.Arguments}
	if token := req.Params.GetProgressToken(); token != nil {
		params.SetProgressToken(token)
		p.progress.Store(token, req.Session)
		defer p.progress.Delete(token)
	}
	if !p.readOnly[tool] {
		ctx = withKey(ctx, newKey())
	}
	deadline := time.Now().Add(p.cfg.RetryFor)
	backoff := minBackoff
	for {
		res, err := p.hub.call(ctx, params)
		switch {
		case err == nil:
			p.live.follow(tool, res)
			p.wake.follow(tool, res)
			answer = res
			return res, nil
		case answered(err):
			return nil, err // the hub answered: a protocol error, passed on as it is
		case ctx.Err() != nil, p.refused.get() != nil, time.Now().After(deadline):
			return p.failed(ctx, err)
		}
		p.logf("%s: no answer from the hub (%v); sending it again in %v", tool, err, backoff)
		if !sleep(ctx, backoff) {
			return p.failed(ctx, err)
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// failed answers a call the proxy gave up on: the harness's own
// cancellation as it is, the hub's refusal of the credential, else
// hub_unreachable with the last error.
func (p *Proxy) failed(ctx context.Context, err error) (*mcp.CallToolResult, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if r := p.refused.get(); r != nil {
		return mcpserver.ErrorResult(r), nil
	}
	return mcpserver.ErrorResult(stick.Errorf(CodeHubUnreachable, "the hub at %s did not answer for %v: %v", p.base, p.cfg.RetryFor, err).
		WithHint("check that 'stick serve' runs there and that this host reaches it; the call can be made again, it was done at most once")), nil
}

// onProgress passes the hub's progress on a call to the harness.
func (p *Proxy) onProgress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	if ss, ok := p.progress.Load(req.Params.ProgressToken); ok {
		_ = ss.(*mcp.ServerSession).NotifyProgress(ctx, req.Params)
	}
}

// logf says something of the connection to the hub on Config.Log.
func (p *Proxy) logf(format string, args ...any) {
	fmt.Fprintf(p.cfg.Log, "stick mcp: "+format+"\n", args...)
}

// sleep waits d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// keyKey is the context key of a call's Idempotency-Key.
type keyKey struct{}

// withKey returns ctx carrying an Idempotency-Key for the requests made
// with it (see transport).
func withKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyKey{}, key)
}

// newKey returns a fresh Idempotency-Key.
func newKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "ik_" + hex.EncodeToString(b)
}
