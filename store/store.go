package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/internal/ownerfs"
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
	// Workspaces keys the rooms a migration finds without a key, from
	// their stored paths (default stick.LocalWorkspaces()).
	Workspaces stick.Workspaces
	// noFTS makes the store behave as with a SQLite without FTS5 (tests).
	noFTS bool
}

// Store is a stick.Store on one SQLite file.
type Store struct {
	path  string
	opts  Options
	pool  *sqlitex.Pool
	watch *watcher
	// vconn is dedicated to PRAGMA data_version for the watcher.
	vconn *sqlite.Conn
	// wconn runs every write transaction of this process, one at a time
	// (the holder of the writer token uses it), so its page cache stays warm
	// instead of being invalidated by writes through other connections.
	wconn *sqlite.Conn
	// wclosed is set by Close; like wconn it is only touched by the holder
	// of the writer token.
	wclosed bool
	// files are the database file, -wal and -shm this store opened (see
	// replaced).
	files noted
	// dirMark is their directory as the last check that found them saw it
	// (see replaced).
	dirMark atomic.Pointer[dirMark]

	closeOnce sync.Once
	closeErr  error
	// writer and lock queue write transactions: writer among this process's
	// goroutines, lock (a file lock beside the database) among processes.
	writer chan struct{}
	lock   *filelock.Lock
	// bell is written after every commit. Its filesystem event reaches
	// other processes' watchers only once the commit is visible, unlike
	// the writes to the -wal file, which come before SQLite publishes it.
	bell *os.File
	// bells wake only the waiters a commit concerns (see Tx.Ring).
	bells *bells
	// indexing is set by migrate when the log has a backlog to index after
	// the open. fill runs Index in the background while a backlog is
	// longer than a write transaction indexes by the way (see indexSome).
	indexing bool
	fill     backgroundFill
}

// backgroundFill runs Index in one goroutine at a time and stops it at
// Close.
type backgroundFill struct {
	mu      sync.Mutex
	running bool
	closed  bool
	cancel  context.CancelFunc
	done    chan struct{}
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

// dataDirDetail is what EnsureDataDir's error says beyond its ErrDataDir
// prefix and its advice, which the coded error's code and hint carry.
func dataDirDetail(err error) string {
	msg := strings.TrimPrefix(err.Error(), ErrDataDir.Error()+": ")
	return strings.TrimSuffix(msg, " (set "+DataDirEnv+" to a writable directory)")
}

// OpenDir opens (creating if needed) the database rooms.sqlite in dir. dir is
// created with owner-only permissions and must be on a local filesystem.
func OpenDir(dir string, opts Options) (*Store, error) {
	if err := EnsureDataDir(dir); err != nil {
		hint := fmt.Sprintf("make %s a writable directory, or set %s to one", dir, DataDirEnv)
		if errors.Is(err, ErrDataDirUnsafe) {
			hint = PrivateHint(dir)
		}
		return nil, stick.Errorf(stick.CodeDataDir, "cannot use the data directory: %s", dataDirDetail(err)).Wrap(err).With("path", dir).
			WithHint("%s", hint)
	}
	if err := CheckLocalFS(dir); err != nil {
		return nil, stick.Errorf(stick.CodeUnsupportedFilesystem, "%v", err).Wrap(err).With("path", dir).
			WithHint("set %s to a directory on a local disk", DataDirEnv)
	}
	return Open(filepath.Join(dir, DBFileName), opts)
}

// Open opens (creating if needed) the database file at path and migrates it
// to the current schema. Its directory must exist and be on a local
// filesystem.
func Open(path string, opts Options) (*Store, error) {
	if err := CheckLocalFS(filepath.Dir(path)); err != nil {
		return nil, stick.Errorf(stick.CodeUnsupportedFilesystem, "%v", err).Wrap(err).With("path", path).
			WithHint("set %s to a directory on a local disk", DataDirEnv)
	}
	if err := deletedUnderOthers(path); err != nil {
		return nil, err
	}
	if err := openPrivate(path); err != nil {
		return nil, err
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = DefaultBusyTimeout
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = 8
	}
	s := &Store{path: path, opts: opts, writer: make(chan struct{}, 1)}
	lock, err := filelock.Open(path + "-lock")
	if err := unsafeErr(path, err); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, s.openErr(err)
	}
	s.lock = lock
	if err := s.migrateLocked(); err != nil {
		s.Close()
		return nil, err
	}
	if s.bell, err = ownerfs.OpenFile(path+bellSuffix, os.O_WRONLY|os.O_CREATE, 0o600); err != nil {
		s.Close()
		if err := unsafeErr(path, err); err != nil {
			return nil, err
		}
		return nil, stick.Errorf(stick.CodeDataDir, "cannot write %s", path+bellSuffix).Wrap(err).With("path", path+bellSuffix).
			WithHint("make the directory writable, or set %s to another directory", DataDirEnv)
	}
	pool, err := sqlitex.NewPool(path, sqlitex.PoolOptions{
		Flags:       sqlite.OpenReadWrite | sqlite.OpenWAL,
		PoolSize:    opts.PoolSize,
		PrepareConn: s.prepare,
	})
	if err != nil {
		s.Close()
		return nil, s.openErr(err)
	}
	s.pool = pool
	if s.vconn, err = sqlite.OpenConn(path, sqlite.OpenReadOnly|sqlite.OpenWAL); err != nil {
		s.Close()
		return nil, s.openErr(err)
	}
	if err := s.prepare(s.vconn); err != nil {
		s.Close()
		return nil, err
	}
	if s.wconn, err = sqlite.OpenConn(path, sqlite.OpenReadWrite|sqlite.OpenWAL); err != nil {
		s.Close()
		return nil, s.openErr(err)
	}
	if err := s.prepare(s.wconn); err != nil {
		s.Close()
		return nil, err
	}
	s.noteFiles()
	if s.watch, err = newWatcher(path, s.dataVersion, opts.FallbackPoll); err != nil {
		s.Close()
		return nil, stick.Errorf(stick.CodeInternal, "cannot watch %s for changes", path).Wrap(err)
	}
	s.watch.watchFiles(s.filesGone)
	if s.bells, err = openBells(path); err != nil {
		s.Close()
		if err := unsafeErr(path, err); err != nil {
			return nil, err
		}
		return nil, stick.Errorf(stick.CodeDataDir, "cannot create %s", path+bellsSuffix).Wrap(err).With("path", path+bellsSuffix).
			WithHint("make the directory writable, or set %s to another directory", DataDirEnv)
	}
	s.pruneBells()
	if s.indexing {
		s.startFill()
	}
	return s, nil
}

// openPrivate makes the database's files the user's alone before SQLite
// opens them: their directory must be the user's and writable by nobody
// else, the database file is created owner-only (SQLite gives the -wal and
// -shm files it creates the database file's permissions), and none of them
// may be a symbolic link or another user's file. A file an older stick
// created readable by others is made owner-only.
func openPrivate(path string) error {
	if err := checkPrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	if f, err := ownerfs.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
	return checkPrivateFiles(path)
}

// checkPrivateDir is CheckPrivateDir's coded error.
func checkPrivateDir(dir string) error {
	if err := CheckPrivateDir(dir); err != nil {
		hint := fmt.Sprintf("make %s a writable directory, or set %s to one", dir, DataDirEnv)
		if errors.Is(err, ErrDataDirUnsafe) {
			hint = PrivateHint(dir)
		}
		return stick.Errorf(stick.CodeDataDir, "cannot use the data directory: %s", dataDirDetail(err)).Wrap(err).With("path", dir).
			WithHint("%s", hint)
	}
	return nil
}

// checkPrivateFiles refuses a database, -wal or -shm file that is a link or
// another user's file, and takes from them any permission beyond 0600.
func checkPrivateFiles(path string) error {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		// Other failures (a read-only file or filesystem) are SQLite's to
		// report, with their own codes.
		if err := unsafeErr(path, ownerfs.CheckFile(p, 0o600)); err != nil {
			return err
		}
	}
	return nil
}

// unsafeErr is the coded error for err when it refuses a file beside the
// database at path (a link, another user's file), else nil.
func unsafeErr(path string, err error) error {
	if !errors.Is(err, ownerfs.ErrUnsafe) {
		return nil
	}
	return stick.Errorf(stick.CodeDataDir, "cannot use the database's files: %s", strings.TrimPrefix(err.Error(), ownerfs.ErrUnsafe.Error()+": ")).
		Wrap(err).With("path", path).
		WithHint("someone may have planted it: look at it, remove it, and run again; or set %s to a directory of your own", DataDirEnv)
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// prepare sets the per-connection pragmas, one statement at a time.
func (s *Store) prepare(conn *sqlite.Conn) error {
	mode := ""
	for _, p := range connPragmas(s.opts.BusyTimeout) {
		err := sqlitex.ExecuteTransient(conn, p, &sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
			mode = st.ColumnText(0)
			return nil
		}})
		if err != nil {
			return s.mapErr(fmt.Errorf("%s: %w", p, err))
		}
		if strings.HasPrefix(p, "PRAGMA journal_mode") && !strings.EqualFold(mode, "wal") {
			return stick.Errorf(stick.CodeUnsupportedFilesystem, "cannot use write-ahead logging for %s (journal mode stays %q)", s.path, mode).
				With("path", s.path).WithHint("set %s to a directory on a local disk", DataDirEnv)
		}
	}
	return nil
}

// connPragmas are the pragmas every connection runs first, in order. A
// Floor runs the same ones, so that its figures stay those of a store.
func connPragmas(busy time.Duration) []string {
	return []string{
		"PRAGMA busy_timeout = " + strconv.FormatInt(busy.Milliseconds(), 10),
		"PRAGMA journal_mode = WAL",
		"PRAGMA synchronous = NORMAL",
		"PRAGMA foreign_keys = ON",
	}
}

func (s *Store) dataVersion() (int64, error) {
	var v int64
	err := sqlitex.ExecuteTransient(s.vconn, "PRAGMA data_version", &sqlitex.ExecOptions{
		ResultFunc: func(stmt *sqlite.Stmt) error { v = stmt.ColumnInt64(0); return nil },
	})
	return v, err
}

// Update runs fn in one BEGIN IMMEDIATE transaction, after queueing behind
// every other stick writer, and wakes waiters after it commits.
func (s *Store) Update(ctx context.Context, fn func(stick.Tx) error) error {
	release, err := s.acquireWriter(ctx)
	if err != nil {
		return err
	}
	var wake func()
	err = s.retryBusy(ctx, func() error {
		var err error
		wake, err = s.update(ctx, fn)
		return err
	})
	// The next writer, often the very waiter about to be woken, may go
	// on while this one rings.
	release()
	if wake != nil {
		wake()
	}
	return err
}

// update runs fn in a write transaction and returns, once it committed,
// the function that wakes its waiters, to call after the write lock is
// released.
func (s *Store) update(ctx context.Context, fn func(stick.Tx) error) (wake func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.wclosed {
		return nil, s.closedErr()
	}
	if err := s.replaced(); err != nil {
		return nil, err
	}
	conn := s.wconn // the writer token, held by the caller, makes it ours
	defer conn.SetInterrupt(conn.SetInterrupt(ctx.Done()))
	end, err := sqlitex.ImmediateTransaction(conn)
	if err != nil {
		return nil, s.mapErr(s.ctxErr(ctx, err))
	}
	t := &tx{conn: conn, write: true, noFTS: s.opts.noFTS}
	err = fn(t)
	if err == nil && t.indexDue && !t.noFTS {
		err = t.indexSome()
	}
	end(&err)
	if t.backlog {
		s.startFill()
	}
	if err != nil {
		return nil, s.mapErr(s.ctxErr(ctx, err))
	}
	s.noteFiles()
	return func() {
		s.watch.notify()
		s.ring()
		s.bells.ring(t.rings)
		s.bells.remove(t.unbells)
	}, nil
}

// bellSuffix names the file beside the database that rings after commits.
const bellSuffix = "-bell"

// ring announces a commit to other processes' watchers. A failed write
// only costs them latency (their fallback poll still sees the commit), so
// it is not an error of the transaction that already committed.
func (s *Store) ring() {
	_, _ = s.bell.WriteAt([]byte{1}, 0)
}

// View runs fn in a read transaction.
func (s *Store) View(ctx context.Context, fn func(stick.Tx) error) error {
	return s.retryBusy(ctx, func() error { return s.view(ctx, fn) })
}

func (s *Store) view(ctx context.Context, fn func(stick.Tx) error) (err error) {
	conn, err := s.take(ctx)
	if err != nil {
		return err
	}
	defer s.pool.Put(conn)
	return s.read(ctx, conn, fn)
}

// BriefView implements stick.BriefViewer: when no write of this process is
// under way it reads on the writing connection, whose page cache this
// process's own last commit left warm (a pooled connection's cache is
// emptied by every commit of any connection), holding off the process's
// writers for the few rows it reads; otherwise it reads as View does.
func (s *Store) BriefView(ctx context.Context, fn func(stick.Tx) error) error {
	return s.retryBusy(ctx, func() error {
		select {
		case s.writer <- struct{}{}:
		default:
			return s.view(ctx, fn)
		}
		defer func() { <-s.writer }()
		if s.wclosed {
			return s.closedErr()
		}
		conn := s.wconn
		defer conn.SetInterrupt(conn.SetInterrupt(ctx.Done()))
		return s.read(ctx, conn, fn)
	})
}

// closedErr is the error of a transaction on a closed store's writing
// connection.
func (s *Store) closedErr() error {
	return stick.Errorf(stick.CodeInternal, "no database connection for %s (the store is closed)", s.path)
}

// read runs fn in a read transaction on conn.
func (s *Store) read(ctx context.Context, conn *sqlite.Conn, fn func(stick.Tx) error) (err error) {
	if err := s.replaced(); err != nil {
		return err
	}
	end := sqlitex.Transaction(conn)
	err = fn(&tx{conn: conn, noFTS: s.opts.noFTS})
	end(&err)
	if err != nil {
		return s.mapErr(s.ctxErr(ctx, err))
	}
	return nil
}

// retryBusy runs op again while it fails with db_busy and the busy timeout
// has time left. SQLite returns SQLITE_BUSY without waiting in a few
// transient states (a WAL being recovered or reset by another process); a
// fresh transaction a moment later succeeds. fn re-reads everything, so
// running it again is safe.
func (s *Store) retryBusy(ctx context.Context, op func() error) error {
	start := time.Now()
	for delay := time.Millisecond; ; delay = min(2*delay, 25*time.Millisecond) {
		err := op()
		if stick.ErrorCode(err) != stick.CodeDBBusy {
			return err
		}
		if time.Since(start)+delay > s.opts.BusyTimeout {
			return s.busy(time.Since(start), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
	}
}

// Changed returns a channel closed at the next commit by any process.
func (s *Store) Changed() <-chan struct{} { return s.watch.changed() }

// Rung returns a channel closed when a commit rings agent's bell in room
// (agent "" for the room's own bell), or nil when this store cannot watch
// bells, in which case the caller should wait on Changed.
func (s *Store) Rung(room, agent string) <-chan struct{} { return s.bells.rung(room, agent) }

// Close releases the connections and the file watch, after a write in
// flight. Closing again does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Store) close() error {
	s.stopFill()
	var errs []error
	if s.watch != nil {
		errs = append(errs, s.watch.close())
	}
	if s.bells != nil {
		errs = append(errs, s.bells.close())
	}
	if s.vconn != nil {
		errs = append(errs, s.vconn.Close())
	}
	if s.wconn != nil {
		s.writer <- struct{}{} // wait for a write in flight
		s.wclosed = true
		errs = append(errs, s.wconn.Close())
		<-s.writer
	}
	if s.bell != nil {
		errs = append(errs, s.bell.Close())
	}
	if s.pool != nil {
		errs = append(errs, s.pool.Close())
	}
	if s.lock != nil {
		errs = append(errs, s.lock.Close())
	}
	return errors.Join(errs...)
}

// take gets a pooled connection, or a coded error.
func (s *Store) take(ctx context.Context) (*sqlite.Conn, error) {
	conn, err := s.pool.Take(ctx)
	if err == nil {
		return conn, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, stick.Errorf(stick.CodeInternal, "no database connection for %s (is the store closed?)", s.path).Wrap(err)
}

// ctxErr reports the context's error when the context ended and the failure
// is the interrupted statement, not a domain error such as stale_lease.
func (s *Store) ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil && sqlite.ErrCode(err).ToPrimary() == sqlite.ResultInterrupt {
		return ctx.Err()
	}
	return err
}

// mapErr turns driver errors into coded stick errors: a busy or locked
// database is db_busy, a file that is not a database is db_corrupt, a file
// or directory that cannot be opened or written and a full disk are
// data_dir_unusable. Errors that already carry a code pass through.
func (s *Store) mapErr(err error) error {
	if err == nil {
		return nil
	}
	var se *stick.Error
	if errors.As(err, &se) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	code := sqlite.ErrCode(err)
	if code == sqlite.ResultIOErrSHMSize {
		// SQLite writes to every page it adds to the -shm file, so that a
		// full disk is reported as this error instead of a crash when the
		// mapped page is touched.
		code = sqlite.ResultFull
	}
	switch code.ToPrimary() {
	case sqlite.ResultBusy, sqlite.ResultLocked:
		return stick.Errorf(stick.CodeDBBusy, "the database %s is locked by another connection", s.path).
			Wrap(err).With("path", s.path).WithHint("retry; if it persists, look for a process stuck holding %s", s.path)
	case sqlite.ResultNotADB, sqlite.ResultCorrupt:
		return stick.Errorf(stick.CodeDBCorrupt, "%s is not a usable SQLite database", s.path).Wrap(err).With("path", s.path).
			WithHint("move the file aside (it may hold other data) and run again to create a fresh database")
	case sqlite.ResultReadOnly, sqlite.ResultCantOpen, sqlite.ResultPerm, sqlite.ResultAuth:
		// Even a read-only connection creates the -shm file beside the
		// database, so a reader can fail here too. SQLite gives the -wal
		// and -shm files it creates the database file's permissions, so
		// they may be read-only even once the database file is not.
		msg := "cannot write " + s.path
		switch {
		case code.ToPrimary() == sqlite.ResultCantOpen:
			msg = "cannot open " + s.path
		case code == sqlite.ResultReadOnlyDirectory:
			msg = "cannot create files beside " + s.path + ": its directory is read-only"
		}
		return stick.Errorf(stick.CodeDataDir, "%s", msg).Wrap(err).With("path", s.path).
			WithHint("make the file, its -wal and -shm files and its directory writable, or set %s to another directory", DataDirEnv)
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
