package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/wake"
)

// A harness session that can be woken (Config.Wake) is woken by its own
// 'stick mcp': after a join, the server records the transports' names in
// the room (stick.Service.RegisterWake) and follows the member's bell
// with stick.Service.AwaitWake while no call of the connection waits in
// that room (a wait_for_turn, a sync that waits). When a wake is due (a
// note addressed to the member, the stick handed to it, a request for
// the room's conclusion), it claims it, so the session is woken once per
// unread batch, delivers a fixed notice with package wake (no message
// body: only the sanitised sender and room, and how to read it), and
// reports the delivery state. The secret of a transport stays in this
// process.

// wakers are a server's wake loops, one per connection and room.
type wakers struct {
	mu    sync.Mutex
	loops map[wakerKey]*waker
}

type wakerKey struct {
	ss   *mcp.ServerSession
	room string
}

// waker is one wake loop: waits counts the calls of its connection that
// wait in its room now.
type waker struct {
	waits  atomic.Int64
	cancel context.CancelFunc
}

// waiting marks a call of the connection waiting in room until the
// returned function is called; no wake goes while one waits.
func (s *Server) waiting(req *mcp.CallToolRequest, room string) func() {
	if req == nil || req.Session == nil || len(s.cfg.Wake) == 0 {
		return func() {}
	}
	s.wakers.mu.Lock()
	w := s.wakers.loops[wakerKey{req.Session, room}]
	s.wakers.mu.Unlock()
	if w == nil {
		return func() {}
	}
	w.waits.Add(1)
	return func() { w.waits.Add(-1) }
}

// startWaker registers the connection's transports in the room it joined
// and starts its wake loop there, once per connection and room; the loop
// ends when the connection closes or the member leaves.
func (s *Server) startWaker(req *mcp.CallToolRequest, c stick.Caller, room string) {
	if len(s.cfg.Wake) == 0 || req == nil || req.Session == nil {
		return
	}
	key := wakerKey{req.Session, room}
	s.wakers.mu.Lock()
	if s.wakers.loops == nil {
		s.wakers.loops = map[wakerKey]*waker{}
	}
	if _, ok := s.wakers.loops[key]; ok {
		s.wakers.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &waker{cancel: cancel}
	s.wakers.loops[key] = w
	s.wakers.mu.Unlock()
	names := wake.Names(s.cfg.Wake)
	svc := s.cfg.Service
	go func() {
		_ = req.Session.Wait()
		s.stopWaker(key)
	}()
	go func() {
		defer s.stopWaker(key)
		if err := svc.RegisterWake(ctx, c, room, names); err != nil {
			s.logWake("registering how this session is woken in room %s failed: %v", room, err)
			return
		}
		idle := func() bool { return w.waits.Load() == 0 }
		for {
			claim, err := svc.AwaitWake(ctx, c, room, idle)
			if err != nil {
				if ctx.Err() == nil && stick.ErrorCode(err) != stick.CodeUnknownMember && stick.ErrorCode(err) != stick.CodeRoomNotFound {
					s.logWake("waiting to wake this session in room %s ended: %v", room, err)
				}
				return
			}
			ds := wake.Deliver(ctx, s.cfg.Wake, WakeNotice(claim), s.cfg.WakeOptions)
			if len(ds) == 0 {
				continue
			}
			last := ds[len(ds)-1]
			if err := svc.ReportWake(ctx, c, room, string(last.Transport), string(last.State)); err != nil && ctx.Err() == nil {
				s.logWake("reporting a wake in room %s failed: %v", room, err)
			}
		}
	}()
}

// WakeNotice is the text that wakes a session for claim (see
// wake.Notice): who addressed it in which room, and the tool to call, sync
// to read a note, wait_for_turn to take the stick handed to it. Every
// frontend that wakes a session ('stick mcp', and 'stick mcp --server'
// for a hub's claims) sends this text.
func WakeNotice(claim stick.WakeClaim) string {
	how := "Call the sync tool of stick (room_id " + claim.RoomID + ") to read it."
	if claim.Why != stick.WakeAddressed {
		how = "Call wait_for_turn of stick (room_id " + claim.RoomID + ") to take the stick."
	}
	return wake.Notice(claim.From, claim.RoomID, how)
}

// stopWaker ends the wake loop of key, if it runs.
func (s *Server) stopWaker(key wakerKey) {
	s.wakers.mu.Lock()
	w := s.wakers.loops[key]
	delete(s.wakers.loops, key)
	s.wakers.mu.Unlock()
	if w != nil {
		w.cancel()
	}
}

// logWake writes one line about waking to Config.Log, if set.
func (s *Server) logWake(format string, args ...any) {
	if s.cfg.Log != nil {
		fmt.Fprintf(s.cfg.Log, "stick mcp: "+format+"\n", args...)
	}
}
