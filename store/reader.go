package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// Reader is a read-only view of a stick database for commands that only
// look, such as a shell prompt segment: one read-only connection, no
// migration, no file watch, nothing written (not even a checkpoint when it
// closes), so opening, reading and closing it take well under a
// millisecond. It implements stick.Store; Update always fails.
type Reader struct {
	s    *Store // the path and error mapping; no pool, lock or watch
	mu   sync.Mutex
	conn *sqlite.Conn
}

// ErrNoDatabase reports that the database file does not exist yet.
var ErrNoDatabase = errors.New("no database yet")

// OpenReader opens the database in dir for reading. A missing file fails
// with an error wrapping ErrNoDatabase (coded room_not_found: there are no
// rooms); a file of an older or newer schema fails with
// db_schema_mismatch, since only a writer may migrate it.
func OpenReader(dir string) (*Reader, error) {
	path := filepath.Join(dir, DBFileName)
	s := &Store{path: path, opts: Options{BusyTimeout: DefaultBusyTimeout}}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, stick.Errorf(stick.CodeRoomNotFound, "no rooms yet: %s does not exist", path).Wrap(ErrNoDatabase).
			WithHint("run 'stick join' in a workspace to create its room")
	}
	conn, err := sqlite.OpenConn(path, sqlite.OpenReadOnly|sqlite.OpenWAL)
	if err != nil {
		return nil, s.openErr(err)
	}
	r := &Reader{s: s, conn: conn}
	if err := r.check(); err != nil {
		conn.Close()
		return nil, err
	}
	return r, nil
}

// check sets the busy timeout and verifies the file is a stick database of
// this schema version.
func (r *Reader) check() error {
	q := "PRAGMA busy_timeout = " + strconv.FormatInt(r.s.opts.BusyTimeout.Milliseconds(), 10)
	if err := sqlitex.ExecuteTransient(r.conn, q, nil); err != nil {
		return r.s.mapErr(err)
	}
	appID, err := pragmaInt(r.conn, "PRAGMA application_id")
	if err != nil {
		return r.s.mapErr(err)
	}
	if appID != applicationID {
		return r.s.mismatch("it is not a stick database")
	}
	v, err := metaValue(r.conn, "schema_version")
	if err != nil {
		return r.s.mapErr(err)
	}
	if v != strconv.Itoa(SchemaVersion) {
		return r.s.mismatch(fmt.Sprintf("it has schema version %s, this stick reads %d", v, SchemaVersion)).
			WithHint("run any stick command that writes (such as 'stick join') to migrate it, or upgrade stick")
	}
	return nil
}

// View runs fn in a read transaction.
func (r *Reader) View(ctx context.Context, fn func(stick.Tx) error) (err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	end := sqlitex.Transaction(r.conn)
	err = fn(&tx{conn: r.conn})
	end(&err)
	return r.s.mapErr(err)
}

// Update fails: a Reader never writes.
func (r *Reader) Update(context.Context, func(stick.Tx) error) error {
	return stick.Errorf(stick.CodeInternal, "%s is open read-only", r.s.path)
}

// Changed returns a channel that never closes: a Reader serves one-off
// reads, not waits.
func (r *Reader) Changed() <-chan struct{} { return nil }

// Close closes the connection.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conn.Close()
}

// Integrity runs SQLite's integrity check and returns its findings: just
// "ok" for a sound file.
func (r *Reader) Integrity(ctx context.Context) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.conn.SetInterrupt(r.conn.SetInterrupt(ctx.Done()))
	var out []string
	err := sqlitex.ExecuteTransient(r.conn, "PRAGMA integrity_check", &sqlitex.ExecOptions{
		ResultFunc: func(st *sqlite.Stmt) error { out = append(out, st.ColumnText(0)); return nil },
	})
	if err != nil {
		return nil, r.s.mapErr(err)
	}
	return out, nil
}

// Path returns the database file's path.
func (r *Reader) Path() string { return r.s.path }
