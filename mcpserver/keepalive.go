package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
)

// A connection's harness lives as long as the connection, so while a
// connection holds a stick the server keeps its lease alive with
// stick.Keepers (stick.Service.KeepAlive, which also decides when to stop
// renewing: the holder idle for the room's presence TTL). The server only
// starts it on your_turn or a takeover and ends it on release or pass,
// when the connection closes, or when the server shuts down.

// keepersOf returns the keepers of the connection ss, watching the
// connection on first use so that they end when it closes.
func (s *Server) keepersOf(ss *mcp.ServerSession) *stick.Keepers {
	if k, ok := s.keeps.Load(ss); ok {
		return k.(*stick.Keepers)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k, loaded := s.keeps.LoadOrStore(ss, stick.NewKeepers(ctx, s.cfg.Service))
	if loaded {
		cancel()
		return k.(*stick.Keepers)
	}
	go func() {
		_ = ss.Wait()
		cancel()
		k.(*stick.Keepers).Wait()
		s.keeps.Delete(ss)
	}()
	return k.(*stick.Keepers)
}

// follow starts or stops keeping a lease after a tool call's result: a
// your_turn or a takeover starts it, a release or pass ends it.
func (s *Server) follow(req *mcp.CallToolRequest, c stick.Caller, out any) {
	if req.Session == nil {
		return
	}
	switch o := out.(type) {
	case waitOut:
		if o.Status == stick.YourTurn {
			s.keepersOf(req.Session).Keep(c, o.Lease())
		}
	case takeoverOut:
		if o.LeaseID != "" {
			s.keepersOf(req.Session).Keep(c, o.Lease())
		}
	case releaseOut:
		if o.RoomID != "" {
			s.keepersOf(req.Session).End(o.RoomID)
		}
	}
}

// waitKeepers waits until the keeping of every connection's leases has
// ended: after Shutdown, at once.
func (s *Server) waitKeepers() {
	s.keeps.Range(func(_, k any) bool {
		k.(*stick.Keepers).Wait()
		return true
	})
}
