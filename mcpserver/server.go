package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/identity"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/project"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/wake"
)

// Config wires a Server.
type Config struct {
	// Service is the protocol; required.
	Service *stick.Service
	// Tools is the set of tools offered; default AllTools.
	Tools ToolSet
	// Harness is the process that spawned the server (its parent, see
	// identity.ServerHarness). Its facts become the members' liveness
	// facts, so a member is gone when its harness dies, and it feeds the
	// identity hash.
	Harness procid.Identity
	// DataDir is the host's data directory (store.DataDir). When set, each
	// connection claims its derived agent id there, so no two live servers
	// act as one member, and the members joined are recorded there (owner
	// only), so a harness restarted in the same workspace finds its member
	// again. "" keeps claims within this process and records nothing.
	DataDir string
	// Getenv reads the harness's environment (session ids); default os.Getenv.
	Getenv func(string) string
	// Version is reported in the initialize result.
	Version string
	// ProgressEvery is how often wait_for_turn reports progress to a client
	// that asked for it (default 5 s).
	ProgressEvery time.Duration
	// Ready, when set, is waited for before a tool call is served, and its
	// error answers the call: a store still opening in the background
	// (store.Background.Ready), so the server can answer initialize
	// before the database is open and every call still meets the open's
	// own error.
	Ready func(context.Context) error
	// Initialized, when set, is called when a client has initialized its
	// session (notifications/initialized, sent once initialize is
	// answered): 'stick mcp' starts opening its database then, so the
	// open does not compete with the answer to initialize for the CPU.
	Initialized func()
	// NoLeaseKeeping turns off keeping the leases of the sticks this
	// server's connections hold (see keepers), for tests that drive the
	// clock past leases and check that nothing else writes.
	NoLeaseKeeping bool
	// Wake are the ways this server's harness session can be woken (see
	// wakers), in the order they are tried; none turns waking off.
	Wake []wake.Registration
	// WakeOptions bound each wake's delivery.
	WakeOptions wake.Options
	// Log, when set, receives a line for each wake that could not be
	// registered, waited for or reported (never a secret).
	Log io.Writer
}

// Server is one MCP server; each client connection gets its own identity.
type Server struct {
	cfg Config
	box *toolbox
	// conns holds each connection's identities: the derived one, fixed at
	// its first call, and the ones join_path established in its rooms.
	conns sync.Map // *mcp.ServerSession -> *conn
	// keeps holds each connection's kept leases (see keepersOf).
	keeps sync.Map // *mcp.ServerSession -> *stick.Keepers
	// derive serialises deriving connections' identities, so two first
	// calls of one connection claim one id.
	derive sync.Mutex
	// claims keeps two live connections from deriving one agent id.
	claims *identity.Claims
	// records is where joined members are recorded, nil without a data directory.
	records *identity.Records
	// wakers are the wake loops of the connections' rooms.
	wakers wakers
}

// conn is one client connection's identity. It is named once (see
// identity.Claims.NameConnection) at the connection's first call, so later
// requests cannot change it. A join_path with an agent_id_override or a reclaim_token
// replaces it only in the room that join approved it for: package stick
// checks such a name against that room's members alone, so acting under it
// in any other room would let a connection take over a member's name
// there without its reclaim token.
type conn struct {
	// mu guards name and rooms.
	mu sync.Mutex
	// id is the derived identity, claimed for the connection's life; its
	// caller acts in every room no join of this connection established
	// another one for, and never changes. Records are kept under its
	// harness slug.
	id *identity.Connection
	// name is the agent id the last join with an agent_id_override or a
	// reclaim_token established, "" while the connection is known by its
	// derived id. A later join_path without either passes it on as its
	// agent_id_override, so the join stays flagged as overridden and
	// package stick checks the name in the room that join lands in.
	name string
	// rooms holds, by room_id, the membership each successful join of this
	// connection established: the agent id every call naming that room acts
	// as, and its reclaim token.
	rooms map[string]membership
}

// membership is the identity a connection joined a room as.
type membership struct {
	// agentID is the member the connection acts as in the room.
	agentID string
	// token is that member's reclaim token, "" if the join returned none.
	token string
}

// New builds the server and registers every tool.
func New(cfg Config) (*Server, error) { return newServer(cfg, false) }

// newServer is New; with buildSchemas, every tool's schemas are built by
// schemaFor rather than taken from schemas_gen.go.
func newServer(cfg Config, buildSchemas bool) (*Server, error) {
	if cfg.Service == nil {
		return nil, errors.New("mcpserver: Config.Service is required")
	}
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 5 * time.Second
	}
	if cfg.Version == "" {
		cfg.Version = "(devel)"
	}
	tools, err := ParseToolSet(string(cfg.Tools))
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	cfg.Tools = tools
	s := &Server{cfg: cfg, claims: identity.NewClaims(cfg.DataDir)}
	if cfg.DataDir != "" {
		s.records = identity.NewRecords(cfg.DataDir)
	}
	s.box = newToolbox(newMCP(cfg.Version, Instructions(cfg.Tools), s.initialized), s, cfg.Tools, cfg.Service.Defaults(), cfg.ProgressEvery)
	s.box.ready, s.box.buildSchemas = cfg.Ready, buildSchemas
	if err := s.box.register(); err != nil {
		return nil, err
	}
	return s, nil
}

// initialized calls Config.Initialized, if set.
func (s *Server) initialized(context.Context, *mcp.InitializedRequest) {
	if s.cfg.Initialized != nil {
		s.cfg.Initialized()
	}
}

// MCP returns the underlying SDK server, for transports and tests.
func (s *Server) MCP() *mcp.Server { return s.box.mcp }

// Run serves one connection over t until the client disconnects or ctx
// ends. When ctx ends (SIGTERM, SIGINT), every wait in progress returns at
// once, so the server does not linger for the rest of a long poll.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	stop := context.AfterFunc(ctx, s.cfg.Service.Shutdown)
	defer stop()
	defer s.conns.Range(func(_, c any) bool {
		c.(*conn).id.Release()
		return true
	})
	defer s.waitKeepers() // after Shutdown, which ends every kept lease's renewal
	defer s.cfg.Service.Shutdown()
	err := s.box.mcp.Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// conn returns the identity of the connection req arrived on, naming it
// at the connection's first call from the client's name, the harness and
// its session: the first instance of the derived agent id that no other
// live connection on this host holds (see identity.Claims), held until
// the connection ends.
func (s *Server) conn(req *mcp.CallToolRequest) (*conn, error) {
	if c, ok := s.conns.Load(req.Session); ok {
		return c.(*conn), nil
	}
	s.derive.Lock()
	defer s.derive.Unlock()
	if c, ok := s.conns.Load(req.Session); ok {
		return c.(*conn), nil
	}
	id, err := s.claims.NameConnection(clientOf(req), s.cfg.Harness, identity.SessionID(s.cfg.Getenv))
	if err != nil {
		return nil, err
	}
	c := &conn{id: id}
	s.conns.Store(req.Session, c)
	if req.Session != nil {
		go func() {
			req.Session.Wait()
			s.conns.Delete(req.Session)
			id.Release()
		}()
	}
	return c, nil
}

// in returns the caller to act as in room: the member a join of this
// connection established there, else the derived identity. A call that
// names no room ("") acts as the derived identity.
func (c *conn) in(room string) stick.Caller {
	c.mu.Lock()
	defer c.mu.Unlock()
	caller := c.id.Caller
	if m, ok := c.rooms[room]; ok {
		caller.AgentID = m.agentID
	}
	return caller
}

// overridden returns the agent id a join without agent_id_override or
// reclaim_token passes on as its override, "" if none.
func (c *conn) overridden() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.name
}

// token returns the reclaim token this connection holds for agentID in
// room, "" if none.
func (c *conn) token(room, agentID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.rooms[room]; m.agentID == agentID {
		return m.token
	}
	return ""
}

// joined records a successful join: the room's calls act as the member it
// joined as, with its reclaim token kept for the room; it returns the
// membership the connection had there before. A join with an
// override, or a reclaim of a member other than the derived identity, makes
// that member the name later joins pass on; a reclaim of the derived
// identity clears it.
func (c *conn) joined(res stick.JoinResult, override bool) (before membership) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rooms == nil {
		c.rooms = map[string]membership{}
	}
	before = c.rooms[res.RoomID]
	m := membership{agentID: res.AgentID, token: res.ReclaimToken}
	if m.token == "" && before.agentID == m.agentID {
		m.token = before.token // a rejoin need not repeat the token
	}
	c.rooms[res.RoomID] = m
	switch {
	case override:
		c.name = res.AgentID
	case res.Reclaimed && res.AgentID == c.id.Caller.AgentID:
		c.name = ""
	case res.Reclaimed:
		c.name = res.AgentID
	}
	return before
}

// bind implements frontend: a call acts through the configured service as
// the identity the connection has in room (see conn.in).
func (s *Server) bind(_ context.Context, req *mcp.CallToolRequest, room string) (call, error) {
	cn, err := s.conn(req)
	if err != nil {
		return call{}, err
	}
	// A connection's harness lives as long as the connection, so the
	// server keeps its lease alive between calls.
	return call{svc: s.cfg.Service, caller: cn.in(room), req: req, kept: true, waiting: func() func() { return s.waiting(req, room) }}, nil
}

// listPath implements frontend: list_rooms lists around the server's
// working directory, which its harness started it in.
func (s *Server) listPath() string {
	path, _ := os.Getwd()
	return path
}

// after implements frontend: a result that grants or ends a turn starts or
// stops keeping its lease (see keepers), and a member that left is
// forgotten in the records.
func (s *Server) after(cl call, out any) {
	if o, ok := out.(leaveOut); ok && o.Left {
		s.forget(o.RoomID, o.AgentID)
		s.stopWaker(wakerKey{cl.req.Session, o.RoomID})
	}
	if o, ok := out.(joinOut); ok {
		if cn, err := s.conn(cl.req); err == nil {
			s.startWaker(cl.req, cn.in(o.RoomID), o.RoomID)
		}
	}
	if !s.cfg.NoLeaseKeeping {
		s.follow(cl.req, cl.caller, out)
	}
}

// join implements frontend. It joins the room of a path (or a named room)
// as the connection's derived identity, or as the member an
// agent_id_override or reclaim_token names; the identity it joins as is
// the connection's in that room only. A join with neither passes on the
// name of the connection's last override or reclaim as its
// agent_id_override, so it stays flagged as overridden and package stick
// checks that name in the room it lands in. Every join passes the
// memberships the connection holds (stick.JoinRequest.Held): package stick
// proves a name by the token held for it, and makes the member this
// connection was before it reclaimed another leave.
func (s *Server) join(ctx context.Context, cl call, in joinPathIn) (stick.JoinResult, error) {
	conn, err := s.conn(cl.req)
	if err != nil {
		return stick.JoinResult{}, err
	}
	jr := stick.JoinRequest{Path: in.ContextPath, Name: in.Name, ForceNew: in.ForceNew, AgentIDOverride: in.AgentIDOverride, ReclaimToken: in.ReclaimToken,
		Held: conn.held()}
	if jr.AgentIDOverride == "" && jr.ReclaimToken == "" {
		jr.AgentIDOverride = conn.overridden()
		jr.ReclaimIfGone = s.recorded(conn, in.ContextPath, in.Name)
	}
	res, err := cl.svc.JoinPath(ctx, cl.caller, jr)
	if err != nil {
		return stick.JoinResult{}, err
	}
	conn.joined(res, jr.AgentIDOverride != "")
	if err := project.Declare(ctx, cl.svc, conn.in(res.RoomID), res.RoomID, res.WorkspaceRoot); err != nil {
		res.Warning = strings.TrimPrefix(res.Warning+"; ", "; ") + "the project's channels were not declared: " + err.Error()
	}
	if res.Left != "" {
		s.forget(res.RoomID, res.Left)
	}
	s.record(ctx, conn, res)
	return res, nil
}
