package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// markSpace is the first key of every mark's advisory lock ("MARK"), the
// mark's id the second. Locks with two integer keys are a key space of
// their own (pg_locks.objsubid 2), apart from the one-bigint keys of the
// write and migration locks (writeLockKey, migrateLockKey).
const markSpace int32 = 0x4d41524b

// markWait bounds how long a release waits for its lock to be let go, and
// how long Close spends on releasing the marks of processes that run on.
const markWait = 5 * time.Second

// Mark holds a mark for p in the database while this process runs: a row
// in process_marks and a session advisory lock on the Store's listening
// connection, which the server lets go the moment that connection ends,
// however this process ends. The Liveness of any Store on the database
// judges p by it: Alive while one of its marks is held, Gone once none
// is. Mark returns once the lock is held, or fails with ctx's error or
// db_unavailable; p needs a host, a pid and a start time
// (invalid_argument otherwise).
//
// When the listening connection is lost, every mark is taken again on
// the next one: meanwhile p counts as gone. release deletes the row and
// lets the lock go, so that p is judged by its other marks, or by its
// leases when it has none: call it when this process stops standing for
// p while p runs on. Close releases so the marks of processes that still
// run, and keeps those of processes that exited, as proof. Calling
// release again does nothing.
func (s *Store) Mark(ctx context.Context, p stick.Process) (release func(), err error) {
	id, err := s.mark(ctx, p, false)
	if err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { s.release(id) }), nil
}

// Vouch holds a mark for p as Mark does, for a process whose life this
// process hears of rather than sees (a hub, for the members behind the
// proxies whose liveness streams it holds): end(true) lets the lock go
// and keeps the row, as proof that p is gone; end(false) releases the
// mark as Mark's release does, so that p is judged by its other marks,
// or its leases. Close releases the marks not ended, whatever procid
// says of p: a hub that stops proves nothing of its members. Calling end
// again does nothing.
func (s *Store) Vouch(ctx context.Context, p stick.Process) (end func(gone bool), err error) {
	id, err := s.mark(ctx, p, true)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func(gone bool) {
		once.Do(func() {
			if gone {
				s.letGo(id)
			} else {
				s.release(id)
			}
		})
	}, nil
}

// mark takes a mark for p and returns its id once its lock is held;
// vouched marks are released at Close whatever procid says of p.
func (s *Store) mark(ctx context.Context, p stick.Process, vouched bool) (int32, error) {
	if p.IsZero() || p.HostID == "" {
		return 0, stick.Errorf(stick.CodeInvalidArgument, "cannot mark %s: a mark needs the process's host, pid and start time", p).
			With("field", "process").WithHint("mark a process whose identity procid read")
	}
	// Marks of processes that exited and that no member names any more
	// prove nothing: they go first.
	if _, err := s.pool.Exec(ctx, `WITH held AS MATERIALIZED (`+heldMarks+`)
		DELETE FROM process_marks m WHERE m.mark_id NOT IN (SELECT id FROM held)
		AND NOT EXISTS (SELECT 1 FROM members b WHERE b.pid = m.pid AND b.process_started_at = m.started_at
			AND coalesce(b.host_id, '') = m.host_id AND coalesce(b.boot_id, '') = m.boot_id)`, markSpace); err != nil {
		return 0, s.mapErr(err)
	}
	var id int32
	if err := s.pool.QueryRow(ctx, `INSERT INTO process_marks (host_id, boot_id, pid, started_at, marked_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING mark_id`, p.HostID, p.BootID, p.PID, p.StartedAt.UnixMilli(), time.Now().UnixMilli()).Scan(&id); err != nil {
		return 0, s.mapErr(err)
	}
	s.marks.add(id, p, vouched)
	if err := s.marks.await(ctx, id, true, s.listen.done); err != nil {
		s.release(id)
		return 0, s.mapErr(err)
	}
	return id, nil
}

// letGo lets the lock of mark id go and keeps its row: once every mark of
// its process is let go, the process is gone by proof.
func (s *Store) letGo(id int32) {
	ctx, cancel := context.WithTimeout(context.Background(), markWait)
	defer cancel()
	s.marks.remove(id)
	_ = s.marks.await(ctx, id, false, s.listen.done)
}

// release deletes the row of mark id, then lets its lock go: a judge
// that looks in between finds the process's other marks, or none, and
// never a mark let go that would prove it gone.
func (s *Store) release(id int32) {
	ctx, cancel := context.WithTimeout(context.Background(), markWait)
	defer cancel()
	_, _ = s.pool.Exec(ctx, "DELETE FROM process_marks WHERE mark_id = $1", id)
	s.marks.remove(id)
	_ = s.marks.await(ctx, id, false, s.listen.done)
}

// releaseRunning releases the marks of the processes that still run, as
// procid judges them on this host, at Close; the marks of every other
// process end with the listening connection, their rows left as proof
// that the process is gone.
func (s *Store) releaseRunning() {
	for id, p := range s.marks.held() {
		if s.marks.vouched(id) || procid.Check(p) == procid.Alive {
			s.release(id)
		}
	}
}

// heldMarks selects, as id, the mark ids whose lock a session holds in
// this database; $1 is markSpace. Transaction-scoped shared locks of
// watchers (Marks.WatchWithin) are not marks.
const heldMarks = `SELECT objid::bigint AS id FROM pg_locks
	WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND classid::bigint = $1 AND objsubid = 2 AND mode = 'ExclusiveLock' AND granted`

// markSet is what the listener holds: the marks this process wants held
// (want, with the process each stands for) and those whose lock the
// current listening connection holds (has).
type markSet struct {
	mu   sync.Mutex
	want map[int32]stick.Process
	has  map[int32]bool
	// vouch holds the marks taken by Vouch.
	vouch map[int32]bool
	// kick tells the listener that want changed.
	kick chan struct{}
	// changed is closed and replaced whenever has changes.
	changed chan struct{}
}

func newMarkSet() *markSet {
	return &markSet{want: map[int32]stick.Process{}, has: map[int32]bool{}, vouch: map[int32]bool{}, kick: make(chan struct{}, 1), changed: make(chan struct{})}
}

func (m *markSet) add(id int32, p stick.Process, vouched bool) {
	m.mu.Lock()
	m.want[id] = p
	if vouched {
		m.vouch[id] = true
	}
	m.mu.Unlock()
	m.poke()
}

func (m *markSet) remove(id int32) {
	m.mu.Lock()
	delete(m.want, id)
	delete(m.vouch, id)
	m.mu.Unlock()
	m.poke()
}

func (m *markSet) poke() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// vouched reports whether mark id was taken by Vouch.
func (m *markSet) vouched(id int32) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.vouch[id]
}

// held returns the marks wanted.
func (m *markSet) held() map[int32]stick.Process {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[int32]stick.Process, len(m.want))
	for id, p := range m.want {
		out[id] = p
	}
	return out
}

// await waits until mark id's lock is held (or let go, when held is
// false) on the listening connection, ctx ends, or the listener stops.
func (m *markSet) await(ctx context.Context, id int32, held bool, stopped <-chan struct{}) error {
	for {
		m.mu.Lock()
		ok, ch := m.has[id] == held, m.changed
		m.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-stopped:
			if !held {
				return nil // the connection, and its locks, are gone
			}
			return errors.New("the store is closed")
		}
	}
}

// setHas records the locks the listening connection holds now.
func (m *markSet) setHas(ids []int32, held bool) {
	if len(ids) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if held {
			m.has[id] = true
		} else {
			delete(m.has, id)
		}
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// lost records that the listening connection ended, and its locks with it.
func (m *markSet) lost() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.has)
	close(m.changed)
	m.changed = make(chan struct{})
}

// sync makes conn hold the locks of the marks wanted, and no other. A
// lock another session still holds (the lost connection's, until the
// server notices it is gone) is not waited for: retry is set, and the
// listener tries again shortly.
func (m *markSet) sync(ctx context.Context, conn *pgx.Conn) (retry bool, err error) {
	var take, drop []int32
	m.mu.Lock()
	for id := range m.want {
		if !m.has[id] {
			take = append(take, id)
		}
	}
	for id := range m.has {
		if _, ok := m.want[id]; !ok {
			drop = append(drop, id)
		}
	}
	m.mu.Unlock()
	if len(drop) > 0 {
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1, k) FROM unnest($2::int4[]) k", markSpace, drop); err != nil {
			return false, err
		}
		m.setHas(drop, false)
	}
	if len(take) > 0 {
		rows, err := conn.Query(ctx, "SELECT k FROM unnest($2::int4[]) k WHERE pg_try_advisory_lock($1, k)", markSpace, take)
		if err != nil {
			return false, err
		}
		taken, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			return false, err
		}
		m.setHas(taken, true)
		retry = len(taken) < len(take)
	}
	return retry, nil
}
