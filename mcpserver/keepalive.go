package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
)

// A connection's harness lives as long as the connection, so while a
// connection holds a stick the server keeps its lease alive with
// stick.Service.KeepAlive, which also decides when to stop renewing (the
// holder idle for the room's presence TTL). The server only starts it on
// your_turn or a takeover and ends it on release or pass, when the
// connection closes, or when the server shuts down.

// keepers are the leases one connection holds, by room.
type keepers struct {
	// ctx ends when the connection closes.
	ctx context.Context
	mu  sync.Mutex
	// rooms holds the lease kept in each room and the function that stops it.
	rooms map[string]keeper
}

type keeper struct {
	lease stick.Lease
	stop  context.CancelFunc
}

// keepersOf returns the keepers of the connection ss, watching the
// connection on first use so that they end when it closes.
func (s *Server) keepersOf(ss *mcp.ServerSession) *keepers {
	if k, ok := s.keeps.Load(ss); ok {
		return k.(*keepers)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k, loaded := s.keeps.LoadOrStore(ss, &keepers{ctx: ctx, rooms: map[string]keeper{}})
	if loaded {
		cancel()
		return k.(*keepers)
	}
	go func() {
		_ = ss.Wait()
		cancel()
		s.keeps.Delete(ss)
	}()
	return k.(*keepers)
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
			s.keep(s.keepersOf(req.Session), c, o.Lease())
		}
	case takeoverOut:
		if o.LeaseID != "" {
			s.keep(s.keepersOf(req.Session), c, o.Lease())
		}
	case releaseOut:
		if o.RoomID != "" {
			s.keepersOf(req.Session).end(o.RoomID)
		}
	}
}

// keep keeps l alive as c until it ends, unless it is already kept.
func (s *Server) keep(k *keepers, c stick.Caller, l stick.Lease) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if old, ok := k.rooms[l.RoomID]; ok {
		if old.lease == l {
			return
		}
		old.stop()
	}
	ctx, stop := context.WithCancel(k.ctx)
	k.rooms[l.RoomID] = keeper{lease: l, stop: stop}
	s.keepWG.Add(1)
	go func() {
		defer s.keepWG.Done()
		defer stop()
		_ = s.cfg.Service.KeepAlive(ctx, c, l)
		k.mu.Lock()
		if k.rooms[l.RoomID].lease == l {
			delete(k.rooms, l.RoomID)
		}
		k.mu.Unlock()
	}()
}

// end stops keeping the lease of room.
func (k *keepers) end(room string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if old, ok := k.rooms[room]; ok {
		old.stop()
		delete(k.rooms, room)
	}
}
