package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/stickhq/stick/stick"
	"zombiezen.com/go/sqlite"
	"zombiezen.com/go/sqlite/sqlitex"
)

// migrateLocked runs migrate as a queued writer, retrying transient BUSY.
// While another process holds the writer lock, a file that needs no
// migration is only checked, without waiting: opening a store to read must
// not wait for a writer (a stopped or slow process holding the lock would
// otherwise make every command fail with db_busy). Such a store finds out
// at its first write, if ever, that it may not write.
func (s *Store) migrateLocked() error {
	if free, err := s.lock.TryLock(); err == nil && free {
		s.lock.Unlock()
	} else if err == nil && s.current() {
		return nil
	}
	release, err := s.acquireWriter(context.Background())
	if err != nil {
		return err
	}
	defer release()
	// The commit, in migrate's deferred end, fails after every statement's
	// error was mapped (a full disk meets it there), so map its error too.
	return s.retryBusy(context.Background(), func() error { return s.mapErr(s.migrate()) })
}

// migrate brings the file to SchemaVersion inside one write transaction, or
// refuses a file from a newer version or another application, or one this
// process cannot write.
func (s *Store) migrate() (err error) {
	conn, err := sqlite.OpenConn(s.path, sqlite.OpenReadWrite|sqlite.OpenCreate|sqlite.OpenWAL)
	if err != nil {
		return s.openErr(err)
	}
	defer conn.Close()
	if err := s.prepare(conn); err != nil {
		return err
	}
	// Migrations may rebuild a table that others reference, which SQLite
	// allows only with foreign keys off (the setting is per connection, and
	// this connection is closed afterwards); they are checked before commit.
	if err := sqlitex.ExecuteTransient(conn, "PRAGMA foreign_keys = OFF", nil); err != nil {
		return s.mapErr(err)
	}
	end, err := sqlitex.ImmediateTransaction(conn)
	if err != nil {
		return s.mapErr(err)
	}
	defer end(&err)
	appID, err := pragmaInt(conn, "PRAGMA application_id")
	if err != nil {
		return s.mapErr(err)
	}
	tables, err := pragmaInt(conn, "SELECT count(*) FROM sqlite_schema WHERE type = 'table'")
	if err != nil {
		return s.mapErr(err)
	}
	if appID != applicationID && (appID != 0 || tables != 0) {
		return s.mismatch("it is not a stick database (it already holds other tables)")
	}
	version := 0
	if appID == applicationID {
		v, err := metaValue(conn, "schema_version")
		if err != nil {
			return s.mapErr(err)
		}
		if version, err = strconv.Atoi(v); err != nil {
			return s.mismatch(fmt.Sprintf("its schema_version %q is not a number", v))
		}
	}
	if version > SchemaVersion {
		return s.mismatch(fmt.Sprintf("it has schema version %d, newer than this stick's %d", version, SchemaVersion)).
			WithHint("upgrade stick, or set %s to another directory to keep both", DataDirEnv)
	}
	if version == 0 {
		for _, q := range []string{
			"PRAGMA application_id = " + strconv.Itoa(applicationID),
			"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT",
		} {
			if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
				return s.mapErr(err)
			}
		}
	}
	for v := version; v < SchemaVersion; v++ {
		if err := sqlitex.ExecuteScript(conn, migrations[v], nil); err != nil {
			return s.mapErr(fmt.Errorf("migration %d: %w", v+1, err))
		}
		if v+1 == keysVersion {
			if err := s.fillRoomKeys(conn); err != nil {
				return s.mapErr(fmt.Errorf("migration %d: %w", v+1, err))
			}
		}
	}
	if version < SchemaVersion {
		broken, err := pragmaInt(conn, "SELECT count(*) FROM pragma_foreign_key_check")
		if err != nil {
			return s.mapErr(err)
		}
		if broken != 0 {
			return stick.Errorf(stick.CodeDBCorrupt, "cannot migrate %s: %d rows refer to rooms that do not exist", s.path, broken).
				With("path", s.path).WithHint("nothing was changed; move the file aside and run again to start a fresh database")
		}
	}
	if version == SchemaVersion {
		// Nothing to migrate, so prove the file is writable with a write
		// that changes no row: SQLite opens a file it may not write
		// read-only without a word, and the store would otherwise fail
		// only at its first real write.
		if err := sqlitex.ExecuteTransient(conn, "UPDATE meta SET value = value WHERE 0", nil); err != nil {
			return s.mapErr(err)
		}
	}
	if s.indexing, err = s.ensureSearch(conn); err != nil {
		return s.mapErr(err)
	}
	if version < SchemaVersion {
		err := sqlitex.Execute(conn, "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			&sqlitex.ExecOptions{Args: []any{strconv.Itoa(SchemaVersion)}})
		if err != nil {
			return s.mapErr(err)
		}
	}
	return nil
}

// fillRoomKeys gives every room of a path that has no key yet the key
// Options.Workspaces makes of its path: the repository's key when the
// directory is still a clone with an origin, else the local key (a path
// that no longer exists gets one too).
func (s *Store) fillRoomKeys(conn *sqlite.Conn) error {
	type room struct{ id, path string }
	var rooms []room
	err := sqlitex.Execute(conn, "SELECT room_id, canonical_path FROM rooms WHERE room_key = '' AND room_name IS NULL AND canonical_path <> ''",
		&sqlitex.ExecOptions{ResultFunc: func(st *sqlite.Stmt) error {
			rooms = append(rooms, room{st.ColumnText(0), st.ColumnText(1)})
			return nil
		}})
	if err != nil {
		return err
	}
	ws := s.opts.Workspaces
	if ws == nil {
		ws = stick.LocalWorkspaces()
	}
	keys := map[string]string{}
	for _, r := range rooms {
		key, ok := keys[r.path]
		if !ok {
			key = ws.Key(r.path)
			keys[r.path] = key
		}
		err := sqlitex.Execute(conn, "UPDATE rooms SET room_key = ? WHERE room_id = ?", &sqlitex.ExecOptions{Args: []any{key, r.id}})
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) mismatch(why string) *stick.Error {
	return stick.Errorf(stick.CodeDBSchemaMismatch, "cannot use %s: %s", s.path, why).With("path", s.path).
		With("supported_schema_version", SchemaVersion).
		WithHint("set %s to another directory, or move the file aside", DataDirEnv)
}

func pragmaInt(conn *sqlite.Conn, q string) (int64, error) {
	var v int64
	err := sqlitex.ExecuteTransient(conn, q, &sqlitex.ExecOptions{
		ResultFunc: func(stmt *sqlite.Stmt) error { v = stmt.ColumnInt64(0); return nil },
	})
	return v, err
}

func metaValue(conn *sqlite.Conn, key string) (string, error) {
	v := ""
	err := sqlitex.Execute(conn, "SELECT value FROM meta WHERE key = ?", &sqlitex.ExecOptions{
		Args:       []any{key},
		ResultFunc: func(stmt *sqlite.Stmt) error { v = stmt.ColumnText(0); return nil },
	})
	return v, err
}

// current reports whether the file is a stick database that migrate would
// not change, read through a read-only connection that takes no lock a
// writer holds. Any doubt (no file yet, a failed read) is false.
func (s *Store) current() bool {
	conn, err := sqlite.OpenConn(s.path, sqlite.OpenReadOnly|sqlite.OpenWAL)
	if err != nil {
		return false
	}
	defer conn.Close()
	q := "PRAGMA busy_timeout = " + strconv.FormatInt(s.opts.BusyTimeout.Milliseconds(), 10)
	if err := sqlitex.ExecuteTransient(conn, q, nil); err != nil {
		return false
	}
	if appID, err := pragmaInt(conn, "PRAGMA application_id"); err != nil || appID != applicationID {
		return false
	}
	if v, err := metaValue(conn, "schema_version"); err != nil || v != strconv.Itoa(SchemaVersion) {
		return false
	}
	state, err := metaValue(conn, "search_index")
	if err != nil {
		return false
	}
	fts, err := pragmaInt(conn, "SELECT sqlite_compileoption_used('ENABLE_FTS5')")
	if err != nil {
		return false
	}
	return (state == "ready") == (fts != 0 && !s.opts.noFTS)
}
