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

// OpenReader opens the database in dir for reading. A missing or empty
// file fails with an error wrapping ErrNoDatabase (coded room_not_found:
// there are no rooms); a data directory that is not a directory fails with
// data_dir_unusable; a file of an older or newer schema fails with
// db_schema_mismatch, since only a writer may migrate it.
func OpenReader(dir string) (*Reader, error) {
	path := filepath.Join(dir, DBFileName)
	s := &Store{path: path, opts: Options{BusyTimeout: DefaultBusyTimeout}}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, stick.Errorf(stick.CodeRoomNotFound, "no rooms yet: %s does not exist", path).Wrap(ErrNoDatabase).
			With("path", path).WithHint("run 'stick join' in a workspace to create its room")
	case err != nil:
		// Typically a file where the directory (or one of its parents)
		// should be.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, stick.Errorf(stick.CodeDataDir, "cannot use %s as the data directory: %v", dir, err).Wrap(err).
			With("path", dir).WithHint("make %s a writable directory, or set %s to one", dir, DataDirEnv)
	case fi.Size() == 0:
		// A first open that failed, say on a full disk, can leave an empty
		// file; SQLite reads it as an empty database, and the next writer
		// creates the schema in it.
		return nil, stick.Errorf(stick.CodeRoomNotFound, "no rooms yet: %s is empty", path).Wrap(ErrNoDatabase).
			With("path", path).WithHint("run 'stick join' in a workspace to create its room")
	}
	if err := checkPrivateDir(dir); err != nil {
		return nil, err
	}
	if err := checkPrivateFiles(path); err != nil {
		return nil, err
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
		refused := r.s.mismatch(fmt.Sprintf("it has schema version %s, this stick reads %d", v, SchemaVersion))
		if n, nerr := strconv.Atoi(v); nerr == nil && n > SchemaVersion {
			// Only a newer stick can read it; migrations go forward only.
			return refused.WithHint("upgrade stick, or set %s to another directory to keep both", DataDirEnv)
		}
		return refused.WithHint("run any stick command that writes (such as 'stick join') to migrate it, or upgrade stick")
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

// Rung returns nil: a reader watches nothing.
func (r *Reader) Rung(room, agent string) <-chan struct{} { return nil }

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

// SearchIndex reports the state of the full-text search index.
func (r *Reader) SearchIndex(ctx context.Context) (IndexState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.conn.SetInterrupt(r.conn.SetInterrupt(ctx.Done()))
	out, err := indexState(r.conn)
	if err != nil {
		return out, r.s.mapErr(err)
	}
	return out, nil
}

// Path returns the database file's path.
func (r *Reader) Path() string { return r.s.path }
