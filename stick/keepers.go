package stick

import (
	"context"
	"sync"
)

// MaxKeptLeases bounds the leases one Keepers keeps: one per room, far
// more than one member holds at once.
const MaxKeptLeases = 256

// Keepers keeps the leases a frontend's member holds alive between its
// calls, one per room, each with KeepAlive, for as long as the process
// standing for the member lives: 'stick mcp' keeps those of a connection
// while its harness runs, a hub those a proxy's liveness stream names
// while the stream is up. Each keeping ends by itself when KeepAlive
// does (the lease is no longer current), when another lease of its room
// replaces it, at End, or when the Keepers' context ends. A Keepers is
// safe for concurrent use.
type Keepers struct {
	svc   *Service
	ctx   context.Context
	mu    sync.Mutex
	rooms map[string]keptLease
	wg    sync.WaitGroup
}

type keptLease struct {
	lease Lease
	stop  context.CancelFunc
}

// NewKeepers returns the keepers of leases through s (whose KeepAlive
// checks what the caller may do), whose keeping ends with ctx.
func NewKeepers(ctx context.Context, s *Service) *Keepers {
	return &Keepers{svc: s, ctx: ctx, rooms: map[string]keptLease{}}
}

// Keep keeps l alive as c, unless it is already kept; it replaces the
// lease kept in l's room. Past MaxKeptLeases rooms it keeps no more.
func (k *Keepers) Keep(c Caller, l Lease) {
	k.mu.Lock()
	defer k.mu.Unlock()
	old, ok := k.rooms[l.RoomID]
	switch {
	case ok && old.lease == l:
		return
	case ok:
		old.stop()
	case len(k.rooms) >= MaxKeptLeases:
		return
	}
	ctx, stop := context.WithCancel(k.ctx)
	k.rooms[l.RoomID] = keptLease{lease: l, stop: stop}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		defer stop()
		_ = k.svc.KeepAlive(ctx, c, l)
		k.mu.Lock()
		if k.rooms[l.RoomID].lease == l {
			delete(k.rooms, l.RoomID)
		}
		k.mu.Unlock()
	}()
}

// End stops keeping the lease of room.
func (k *Keepers) End(room string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if old, ok := k.rooms[room]; ok {
		old.stop()
		delete(k.rooms, room)
	}
}

// Wait waits until every keeping has ended: after the context ended, or
// the Service shut down, that is at once.
func (k *Keepers) Wait() { k.wg.Wait() }
