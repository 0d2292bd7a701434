package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// DefaultBusyTimeout is how long a write waits for another process's write lock.
const DefaultBusyTimeout = 5 * time.Second

// Options tune a Store. The zero value is the production setting.
type Options struct {
	// BusyTimeout is how long a transaction waits for the write lock before db_busy (default 5 s).
	BusyTimeout time.Duration
	// PoolSize is the number of connections per process (default 8).
	PoolSize int
	// FallbackPoll is the slow poll that backs up file notifications (default 1 s).
	FallbackPoll time.Duration
}

// Store is a stick.Store on one SQLite file.
type Store struct {
	path  string
	opts  Options
	pool  *sqlitex.Pool
	watch *watcher
	// vconn is dedicated to PRAGMA data_version for the watcher.
	vconn *sqlite.Conn
	// writer serialises this process's write transactions, so in-process
	// writers queue in Go instead of sleeping in SQLite's busy handler.
	writer chan struct{}
}

var _ stick.Store = (*Store)(nil)

// OpenDefault opens the database in the data directory (DataDir).
func OpenDefault() (*Store, error) {
	dir, err := DataDir()
	if err != nil {
		return nil, stick.Errorf(stick.CodeDataDir, "cannot resolve the data directory: %v", err).Wrap(err).
			WithHint("set %s to a local directory", DataDirEnv)
	}
	return OpenDir(dir, Options{})
}

// OpenDir opens (creating if needed) the database rooms.sqlite in dir. dir is
// created with owner-only permissions and must be on a local filesystem.
func OpenDir(dir string, opts Options) (*Store, error) {
	if err := EnsureDataDir(dir); err != nil {
		return nil, stick.Errorf(stick.CodeDataDir, "%v", err).Wrap(err).With("path", dir).
			WithHint("make %s a writable directory, or set %s to one", dir, DataDirEnv)
	}
	if err := CheckLocalFS(dir); err != nil {
		return nil, stick.Errorf(stick.CodeUnsupportedFilesystem, "%v", err).Wrap(err).With("path", dir).
			WithHint("set %s to a directory on a local disk", DataDirEnv)
	}
	return Open(filepath.Join(dir, DBFileName), opts)
}

// Open opens (creating if needed) the database file at path and migrates it
// to the current schema.
func Open(path string, opts Options) (*Store, error) {
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = 8
	}
	s := &Store{path: path, opts: opts, writer: make(chan struct{}, 1)}
	if err := s.migrate(); err != nil {
		return nil, err
	}
	pool, err := sqlitex.NewPool(path, sqlitex.PoolOptions{
		Flags:       sqlite.OpenReadWrite | sqlite.OpenWAL,
		PoolSize:    opts.PoolSize,
		PrepareConn: s.prepare,
	})
	if err != nil {
		return nil, s.openErr(err)
	}
	s.pool = pool
	if s.vconn, err = sqlite.OpenConn(path, sqlite.OpenReadOnly|sqlite.OpenWAL); err != nil {
		pool.Close()
		return nil, s.openErr(err)
	}
	if err := s.prepare(s.vconn); err != nil {
		s.Close()
		return nil, err
	}
	if s.watch, err = newWatcher(path, s.dataVersion, opts.FallbackPoll); err != nil {
		s.Close()
		return nil, stick.Errorf(stick.CodeInternal, "cannot watch %s for changes", path).Wrap(err)
	}
	return s, nil
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// prepare sets the per-connection pragmas, one statement at a time.
func (s *Store) prepare(conn *sqlite.Conn) error {
	for _, p := range []string{
		"PRAGMA busy_timeout = " + strconv.FormatInt(s.opts.BusyTimeout.Milliseconds(), 10),
		"PRAGMA journal_mode = WAL",
		"PRAGMA synchronous = NORMAL",
		"PRAGMA foreign_keys = ON",
	} {
		if err := sqlitex.ExecuteTransient(conn, p, nil); err != nil {
			return s.mapErr(fmt.Errorf("%s: %w", p, err))
		}
	}
	return nil
}

func (s *Store) dataVersion() (int64, error) {
	var v int64
	err := sqlitex.ExecuteTransient(s.vconn, "PRAGMA data_version", &sqlitex.ExecOptions{
		ResultFunc: func(stmt *sqlite.Stmt) error { v = stmt.ColumnInt64(0); return nil },
	})
	return v, err
}

// Update runs fn in one BEGIN IMMEDIATE transaction and wakes waiters after
// it commits.
func (s *Store) Update(ctx context.Context, fn func(stick.Tx) error) (err error) {
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.writer }()
	conn, err := s.pool.Take(ctx)
	if err != nil {
		return s.ctxErr(ctx, err)
	}
	defer s.pool.Put(conn)
	end, err := sqlitex.ImmediateTransaction(conn)
	if err != nil {
		return s.ctxErr(ctx, s.mapErr(err))
	}
	err = fn(&tx{conn: conn, write: true})
	end(&err)
	if err != nil {
		return s.ctxErr(ctx, s.mapErr(err))
	}
	s.watch.notify()
	return nil
}

// View runs fn in a read transaction.
func (s *Store) View(ctx context.Context, fn func(stick.Tx) error) (err error) {
	conn, err := s.pool.Take(ctx)
	if err != nil {
		return s.ctxErr(ctx, err)
	}
	defer s.pool.Put(conn)
	end := sqlitex.Transaction(conn)
	err = fn(&tx{conn: conn})
	end(&err)
	if err != nil {
		return s.ctxErr(ctx, s.mapErr(err))
	}
	return nil
}

// Changed returns a channel closed at the next commit by any process.
func (s *Store) Changed() <-chan struct{} { return s.watch.changed() }

// Close releases the connections and the file watch.
func (s *Store) Close() error {
	var errs []error
	if s.watch != nil {
		errs = append(errs, s.watch.close())
	}
	if s.vconn != nil {
		errs = append(errs, s.vconn.Close())
	}
	if s.pool != nil {
		errs = append(errs, s.pool.Close())
	}
	return errors.Join(errs...)
}

// ctxErr prefers the context's error when the context ended, so a cancelled
// call reports cancellation rather than an interrupted statement.
func (s *Store) ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil && stick.ErrorCode(err) != stick.CodeDBBusy {
		return ctx.Err()
	}
	return err
}

// mapErr turns driver errors into coded stick errors: a busy or locked
// database is db_busy, a file that is not a database is db_corrupt. Errors
// that already carry a code pass through.
func (s *Store) mapErr(err error) error {
	if err == nil {
		return nil
	}
	var se *stick.Error
	if errors.As(err, &se) {
		return err
	}
	switch sqlite.ErrCode(err).ToPrimary() {
	case sqlite.ResultBusy, sqlite.ResultLocked:
		return stick.Errorf(stick.CodeDBBusy, "the database stayed locked by another process for more than %s", s.opts.BusyTimeout).
			Wrap(err).With("path", s.path).WithHint("retry; if it persists, look for a process stuck holding %s", s.path)
	case sqlite.ResultNotADB, sqlite.ResultCorrupt:
		return stick.Errorf(stick.CodeDBCorrupt, "%s is not a usable SQLite database", s.path).Wrap(err).With("path", s.path).
			WithHint("move the file aside (it may hold other data) and run again to create a fresh database")
	case sqlite.ResultReadOnly, sqlite.ResultCantOpen, sqlite.ResultPerm, sqlite.ResultAuth:
		return stick.Errorf(stick.CodeDataDir, "cannot write %s", s.path).Wrap(err).With("path", s.path).
			WithHint("make the file and its directory writable, or set %s to another directory", DataDirEnv)
	case sqlite.ResultFull:
		return stick.Errorf(stick.CodeDataDir, "the disk holding %s is full", s.path).Wrap(err).With("path", s.path).
			WithHint("free some space; nothing was written")
	}
	return stick.Errorf(stick.CodeInternal, "database %s", s.path).Wrap(err)
}

func (s *Store) openErr(err error) error {
	if stick.ErrorCode(s.mapErr(err)) != stick.CodeInternal {
		return s.mapErr(err)
	}
	return stick.Errorf(stick.CodeInternal, "cannot open %s", s.path).Wrap(err)
}
