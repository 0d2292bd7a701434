package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// judgeConns is how many connections of the judging pool are kept for
// checks, beside the watches' (Options.MaxWatches).
const judgeConns = 2

// judgeWait bounds a check: a database that does not answer within it
// leaves the process Unknown.
const judgeWait = 5 * time.Second

// Marks judges processes of other hosts by their marks in the database
// (Store.Mark), so that a member whose process crashed on another host
// is gone by proof, as one on this host is:
//
//   - a process of this host, or one without a host, is judged by the
//     fallback (procid.Checker: exact);
//   - a process that has marks is Alive while one of them is held, and
//     Gone once none is: the connection of every process that marked it
//     has ended, however that process ended;
//   - a process without marks is judged by the fallback (Unknown for
//     another host: its leases decide).
//
// A mark can come back (its process reconnects after a network blip or a
// restart of the server), so Marks is a stick.GraceLiveness, whose Gone a
// Service never remembers for good; the grace itself does not apply to
// marks, which are held or not. Its watches wake a waiter the moment the
// last mark of the process it watches is let go.
//
// Marks is safe for concurrent use; it lives as long as its Store.
type Marks struct {
	s        *Store
	host     string
	fallback stick.Liveness
}

var (
	_ stick.GraceLiveness = (*Marks)(nil)
	_ stick.ExitWatcher   = (*Marks)(nil)
)

// Liveness returns the liveness of the Store's database: Marks, with
// fallback (nil: procid.Checker) for the processes of this host and those
// without marks.
func (s *Store) Liveness(fallback stick.Liveness) *Marks {
	if fallback == nil {
		fallback = procid.Checker{}
	}
	host, _, _ := procid.Host()
	return &Marks{s: s, host: host, fallback: fallback}
}

// local reports whether the fallback judges p without looking at marks.
func (l *Marks) local(p stick.Process) bool {
	return p.IsZero() || p.HostID == "" || p.HostID == l.host
}

// Check implements stick.Liveness.
func (l *Marks) Check(p stick.Process) procid.Status {
	if l.local(p) {
		return l.fallback.Check(p)
	}
	st, marked := l.judge(p)
	if !marked {
		return l.fallback.Check(p)
	}
	return st
}

// CheckWithin implements stick.GraceLiveness: Check, with the fallback's
// CheckWithin when it has one.
func (l *Marks) CheckWithin(p stick.Process, grace time.Duration) procid.Status {
	if l.local(p) {
		return l.fallbackWithin(p, grace)
	}
	st, marked := l.judge(p)
	if !marked {
		return l.fallbackWithin(p, grace)
	}
	return st
}

func (l *Marks) fallbackWithin(p stick.Process, grace time.Duration) procid.Status {
	if g, ok := l.fallback.(stick.GraceLiveness); ok {
		return g.CheckWithin(p, grace)
	}
	return l.fallback.Check(p)
}

// Watch implements stick.ExitWatcher.
func (l *Marks) Watch(ctx context.Context, p stick.Process) (<-chan struct{}, bool) {
	return l.WatchWithin(ctx, p, 0)
}

// WatchWithin implements stick.GraceLiveness: for a process with marks
// held, the channel closes once none is (or once the watch cannot go on:
// the waiter then looks again, and polls); for the others, the
// fallback's watch. ok is false when the process has no marks and the
// fallback cannot watch it, or when every watch (Options.MaxWatches) is
// taken.
func (l *Marks) WatchWithin(ctx context.Context, p stick.Process, grace time.Duration) (<-chan struct{}, bool) {
	if !l.local(p) {
		held, marked, err := l.marksOf(ctx, p)
		switch {
		case err != nil:
			return nil, false
		case marked && len(held) == 0:
			gone := make(chan struct{})
			close(gone)
			return gone, true
		case marked:
			return l.follow(ctx, p, held)
		}
	}
	switch f := l.fallback.(type) {
	case stick.GraceLiveness:
		return f.WatchWithin(ctx, p, grace)
	case stick.ExitWatcher:
		return f.Watch(ctx, p)
	}
	return nil, false
}

// follow watches the marks held of p, and looks again whenever one is let
// go, until none is.
func (l *Marks) follow(ctx context.Context, p stick.Process, held []int32) (<-chan struct{}, bool) {
	sub, ok := l.s.watches.subscribe(held)
	if !ok {
		return nil, false
	}
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for {
			select {
			case <-sub.fired:
			case <-ctx.Done():
				sub.stop()
				return
			}
			sub.stop()
			held, marked, err := l.marksOf(ctx, p)
			if err != nil || !marked || len(held) == 0 {
				return
			}
			if sub, ok = l.s.watches.subscribe(held); !ok {
				return
			}
		}
	}()
	return gone, true
}

// judge returns p's status by its marks; marked is false when it has
// none. A database that cannot be asked leaves p Unknown.
func (l *Marks) judge(p stick.Process) (st procid.Status, marked bool) {
	ctx, cancel := context.WithTimeout(context.Background(), judgeWait)
	defer cancel()
	held, marked, err := l.marksOf(ctx, p)
	switch {
	case err != nil:
		return procid.Unknown, true
	case !marked:
		return procid.Unknown, false
	case len(held) > 0:
		return procid.Alive, true
	}
	return procid.Gone, true
}

// marksOf returns the ids of p's marks that are held; marked is false
// when p has no marks at all.
func (l *Marks) marksOf(ctx context.Context, p stick.Process) (held []int32, marked bool, err error) {
	rows, err := l.s.judge.Query(ctx, `WITH held AS MATERIALIZED (`+heldMarks+`)
		SELECT m.mark_id, m.mark_id IN (SELECT id FROM held) FROM process_marks m
		WHERE m.host_id = $2 AND m.boot_id = $3 AND m.pid = $4 AND m.started_at = $5`,
		markSpace, p.HostID, p.BootID, p.PID, p.StartedAt.UnixMilli())
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int32
		var on bool
		if err := rows.Scan(&id, &on); err != nil {
			return nil, false, err
		}
		marked = true
		if on {
			held = append(held, id)
		}
	}
	return held, marked, rows.Err()
}

// watches are the marks a Store's Liveness watches: one connection per
// mark, blocked in a request for a shared lock on it that the server
// grants the moment the mark's session lets it go, shared by every
// waiter of this process that watches the mark, and at most max at once.
type watches struct {
	s     *Store
	ctx   context.Context
	stopw context.CancelFunc
	wg    sync.WaitGroup
	slots chan struct{}

	mu   sync.Mutex
	keys map[int32]*markWatch
}

// markWatch is the watch of one mark.
type markWatch struct {
	fired  chan struct{}
	refs   int
	cancel context.CancelFunc
}

func newWatches(s *Store, max int) *watches {
	ctx, cancel := context.WithCancel(context.Background())
	return &watches{s: s, ctx: ctx, stopw: cancel, slots: make(chan struct{}, max), keys: map[int32]*markWatch{}}
}

// subscription is a waiter's hold on the watches of some marks: fired
// closes when one of them fires.
type subscription struct {
	fired chan struct{}
	stop  func()
}

// subscribe watches the marks ids; ok is false when a watch is needed and
// none is free.
func (w *watches) subscribe(ids []int32) (subscription, bool) {
	var taken []*markWatch
	var keys []int32
	release := func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		for i, mw := range taken {
			mw.refs--
			if mw.refs == 0 {
				if w.keys[keys[i]] == mw {
					delete(w.keys, keys[i])
				}
				mw.cancel()
			}
		}
	}
	for _, id := range ids {
		mw, ok := w.watch(id)
		if !ok {
			release()
			return subscription{}, false
		}
		taken, keys = append(taken, mw), append(keys, id)
	}
	fired := make(chan struct{})
	done := make(chan struct{})
	var fire sync.Once
	for _, mw := range taken {
		go func() {
			select {
			case <-mw.fired:
				fire.Do(func() { close(fired) })
			case <-done:
			}
		}()
	}
	var once sync.Once
	return subscription{fired: fired, stop: func() {
		once.Do(func() {
			close(done)
			release()
		})
	}}, true
}

// watch returns the watch of mark id, started when there is none; ok is
// false when every slot is taken or the store is closing.
func (w *watches) watch(id int32) (*markWatch, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if mw := w.keys[id]; mw != nil {
		mw.refs++
		return mw, true
	}
	if w.ctx.Err() != nil {
		return nil, false
	}
	select {
	case w.slots <- struct{}{}:
	default:
		return nil, false
	}
	ctx, cancel := context.WithCancel(w.ctx)
	mw := &markWatch{fired: make(chan struct{}), refs: 1, cancel: cancel}
	w.keys[id] = mw
	w.wg.Add(1)
	go w.run(ctx, id, mw)
	return mw, true
}

// run waits, on a connection of its own, for the lock of mark id to be
// free, then fires mw; the lock is taken shared for the statement only,
// so a mark taken again later is never kept waiting by it. An error fires
// mw too: its waiters look again. A watch cancelled closes its
// connection, which ends the request.
func (w *watches) run(ctx context.Context, id int32, mw *markWatch) {
	defer w.wg.Done()
	defer func() { <-w.slots }()
	if conn, err := w.s.judge.Acquire(ctx); err == nil {
		_, _ = conn.Exec(ctx, `SELECT set_config('lock_timeout', '0', true), set_config('statement_timeout', '0', true),
			pg_advisory_xact_lock_shared($1, $2)`, markSpace, id)
		if ctx.Err() != nil {
			cctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = conn.Conn().Close(cctx)
			cancel()
		}
		conn.Release()
	}
	if ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	if w.keys[id] == mw {
		delete(w.keys, id)
	}
	w.mu.Unlock()
	close(mw.fired)
}

// stop ends every watch and waits for their connections to close.
func (w *watches) stop() {
	w.stopw()
	w.wg.Wait()
}
