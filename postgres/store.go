package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stickhq/stick/stick"
)

// writeLockKey is the advisory lock every write transaction takes first
// ("STCKWRIT"); migrateLockKey the one migrations take.
const (
	writeLockKey   = 0x535443_4b57524954
	migrateLockKey = 0x535443_4b4d494752
)

// The application_name of a Store's connections, as pg_stat_activity
// shows them: an operator (or a test) tells the listening connection of
// each process from the pool's.
const (
	AppName         = "stick"
	ListenerAppName = "stick-listen"
	LivenessAppName = "stick-liveness"
)

// DefaultBusyTimeout is Options.BusyTimeout's default.
const DefaultBusyTimeout = 10 * time.Second

// Options tune a Store.
type Options struct {
	// BusyTimeout bounds how long a transaction waits for the write lock
	// (or any other lock) before failing with db_busy;
	// DefaultBusyTimeout when zero.
	BusyTimeout time.Duration
	// MaxConns bounds the connections of the Store's pool (besides its
	// listening one and those of its Liveness); pgxpool's default when
	// zero.
	MaxConns int32
	// MaxWatches bounds the marks a Liveness of the Store watches at once
	// (see Marks.WatchWithin), each on a connection of its own;
	// DefaultMaxWatches when zero. A waiter that finds them all taken
	// re-checks the holder every liveness poll instead.
	MaxWatches int
}

// DefaultMaxWatches is Options.MaxWatches's default.
const DefaultMaxWatches = 8

// The TCP keepalive of every connection this side: a database server that
// vanished without closing the connection (power loss, a cut network) is
// noticed within idle + interval * count (25 s), and the listening
// connection replaced, so that this process's marks are taken again.
const (
	keepAliveIdle     = 10 * time.Second
	keepAliveInterval = 5 * time.Second
	keepAliveCount    = 3
)

// Store is a stick.Store on a PostgreSQL database.
type Store struct {
	pool   *pgxpool.Pool
	opts   Options
	where  string // the database, for messages: host and name, never the password
	wake   *waiters
	listen *listener
	marks  *markSet
	// judge is the pool of the Liveness's checks and watches, apart from
	// the pool transactions use, since a check runs inside a transaction.
	judge   *pgxpool.Pool
	watches *watches

	closeOnce sync.Once
	closeErr  error
}

var _ stick.Store = (*Store)(nil)

// Open connects to the database at dbURL (postgres://user@host/db?...),
// brings its schema to SchemaVersion or refuses it with
// db_schema_mismatch, and starts listening for other processes' commits.
func Open(ctx context.Context, dbURL string, opts Options) (*Store, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "the database URL is not valid: %s", redact(err.Error(), dbURL)).
			With("field", "database").WithHint("give a URL such as postgres://user@host:5432/stick")
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	if opts.MaxWatches <= 0 {
		opts.MaxWatches = DefaultMaxWatches
	}
	s := &Store{opts: opts, where: describe(cfg.ConnConfig.Host, cfg.ConnConfig.Database), wake: newWaiters(), marks: newMarkSet()}
	dialer := &net.Dialer{KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: keepAliveIdle, Interval: keepAliveInterval, Count: keepAliveCount}}
	cfg.ConnConfig.DialFunc = dialer.DialContext
	jcfg := cfg.Copy()
	cfg.ConnConfig.RuntimeParams["application_name"] = AppName
	s.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.mapErr(err)
	}
	if err := s.migrate(ctx); err != nil {
		s.pool.Close()
		return nil, err
	}
	// The judging pool connects when a Liveness first asks: a command
	// that judges nobody across hosts never opens one.
	jcfg.ConnConfig.RuntimeParams["application_name"] = LivenessAppName
	jcfg.MaxConns, jcfg.MinConns = int32(opts.MaxWatches)+judgeConns, 0
	if s.judge, err = pgxpool.NewWithConfig(ctx, jcfg); err != nil {
		s.pool.Close()
		return nil, s.mapErr(err)
	}
	s.watches = newWatches(s, opts.MaxWatches)
	lcfg := cfg.ConnConfig.Copy()
	lcfg.RuntimeParams["application_name"] = ListenerAppName
	s.listen, err = startListener(ctx, lcfg, s.wake, s.marks)
	if err != nil {
		s.judge.Close()
		s.pool.Close()
		return nil, s.mapErr(err)
	}
	return s, nil
}

// describe names a database for messages.
func describe(host, db string) string {
	return fmt.Sprintf("PostgreSQL database %q on %s", db, host)
}

// redact removes dbURL's password from msg.
func redact(msg, dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil || u.User == nil {
		return msg
	}
	if p, ok := u.User.Password(); ok && p != "" {
		return strings.ReplaceAll(msg, p, "xxxxx")
	}
	return msg
}

// Update implements stick.Store.Update: fn runs in a READ COMMITTED
// transaction that first takes the store's write lock, an advisory lock
// held until the transaction ends, so that write transactions of every
// process and host run one at a time. The BEGIN, the lock and the read of
// the last event's seq go to the server in one round trip before fn runs,
// in that order, so the seq is read once the lock is granted. The commit
// notifies the other processes' listeners.
func (s *Store) Update(ctx context.Context, fn func(stick.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{ctx: ctx, s: s, write: true, queue: []stmt{
		{sql: "BEGIN ISOLATION LEVEL READ COMMITTED"},
		{sql: "SELECT set_config('lock_timeout', $1, true), pg_advisory_xact_lock($2)",
			args: []any{fmt.Sprintf("%dms", s.opts.BusyTimeout.Milliseconds()), int64(writeLockKey)}},
	}}
	t.queue = append(t.queue, stmt{sql: "SELECT coalesce((SELECT event_seq FROM events ORDER BY event_seq DESC LIMIT 1), 0)",
		row: func(r pgx.Row) error { return r.Scan(&t.seq) }})
	t.opening = len(t.queue)
	err := s.run(ctx, t, func() error {
		if _, err := t.roundTrip("", nil); err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
		if t.wrote || len(t.rings) > 0 {
			return t.later(nil, "SELECT pg_notify($1, $2)", notifyChannel, s.wake.payload(t.rings))
		}
		return nil
	})
	if err == nil && (t.wrote || len(t.rings) > 0) {
		s.wake.ring(t.rings)
	}
	return err
}

// View implements stick.Store.View: fn runs in a READ ONLY REPEATABLE
// READ transaction, a snapshot taken at its first statement that no
// writer waits for. The BEGIN goes to the server with fn's first read.
func (s *Store) View(ctx context.Context, fn func(stick.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{ctx: ctx, s: s, queue: []stmt{{sql: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"}}, opening: 1}
	return s.run(ctx, t, func() error { return fn(t) })
}

// run runs body in t, on a connection of the pool, commits, and maps the
// errors that are not fn's own. A transaction that fails is rolled back.
func (s *Store) run(ctx context.Context, t *tx, body func() error) (err error) {
	if t.conn, err = s.pool.Acquire(ctx); err != nil {
		return s.mapErr(err)
	}
	defer func() {
		if t.conn == nil {
			return
		}
		if pc := t.conn.Conn().PgConn(); err != nil && !pc.IsClosed() && pc.TxStatus() != 'I' {
			_, _ = t.conn.Exec(context.Background(), "ROLLBACK")
		}
		t.conn.Release()
	}()
	if err := body(); err != nil {
		return s.mapErr(err)
	}
	return s.mapErr(t.commit())
}

// lostConnection reports whether err is a connection's loss, not an
// answer of the server.
func lostConnection(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "57P") // the server ended the session
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return false // a new connection failed: the server is not there
	}
	return stick.ErrorCode((&Store{}).mapErr(err)) == stick.CodeDBUnavailable
}

// Changed implements stick.Store.Changed.
func (s *Store) Changed() <-chan struct{} { return s.wake.changed() }

// Rung implements stick.Store.Rung: a channel closed by the commit of a
// transaction, of any process, that rang agent's bell in room.
func (s *Store) Rung(room, agent string) <-chan struct{} { return s.wake.rung(room, agent) }

// Close releases the marks of the processes that still run (see Mark),
// stops listening, which lets the other marks go, stops watching and
// closes the connections, after the transactions in flight. Closing
// again does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.releaseRunning()
		if s.listen != nil {
			s.listen.stop()
		}
		s.watches.stop()
		s.judge.Close()
		s.pool.Close()
		s.wake.wakeAll()
	})
	return s.closeErr
}
