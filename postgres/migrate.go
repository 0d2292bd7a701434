package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/stick"
)

// migrate brings the database to SchemaVersion in one transaction, under
// an advisory lock so that stores opening at once migrate one after the
// other, or refuses a database of a newer version or of another
// application. It also makes the process_marks table when it is missing
// (see marksSchema).
func (s *Store) migrate(ctx context.Context) error {
	return s.mapErr(pgx.BeginFunc(ctx, s.pool, func(ptx pgx.Tx) error {
		var num int
		if err := ptx.QueryRow(ctx, serverVersionNum).Scan(&num); err != nil {
			return err
		}
		if err := s.checkServer(num); err != nil {
			return err
		}
		if _, err := ptx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLockKey)); err != nil {
			return err
		}
		var hasVersion bool
		var tables int
		err := ptx.QueryRow(ctx, `SELECT to_regclass('schema_version') IS NOT NULL,
			(SELECT count(*) FROM pg_tables WHERE schemaname = current_schema())`).Scan(&hasVersion, &tables)
		if err != nil {
			return err
		}
		version := 0
		switch {
		case hasVersion:
			var v string
			if err := ptx.QueryRow(ctx, "SELECT version::text FROM schema_version").Scan(&v); err != nil {
				if err == pgx.ErrNoRows {
					return s.mismatch("its schema_version table is empty")
				}
				return err
			}
			if version, err = strconv.Atoi(v); err != nil {
				return s.mismatch(fmt.Sprintf("its schema_version %q is not a number", v))
			}
		case tables != 0:
			return s.mismatch("it is not a stick database (it already holds other tables)")
		}
		if version > SchemaVersion {
			return s.mismatch(fmt.Sprintf("it has schema version %d, newer than this stick's %d", version, SchemaVersion)).
				WithHint("upgrade stick, or give another database")
		}
		if version != 0 && version < baseVersion {
			return s.mismatch(fmt.Sprintf("it has schema version %d, older than any this stick migrates from (%d)", version, baseVersion))
		}
		if version == SchemaVersion {
			return ensureMarks(ctx, ptx)
		}
		if version == 0 {
			if _, err := ptx.Exec(ctx, "CREATE TABLE schema_version (version INTEGER NOT NULL)"); err != nil {
				return err
			}
			if _, err := ptx.Exec(ctx, "INSERT INTO schema_version (version) VALUES (0)"); err != nil {
				return err
			}
			version = baseVersion - 1
		}
		for v := version; v < SchemaVersion; v++ {
			if _, err := ptx.Exec(ctx, migrations[v-baseVersion+1]); err != nil {
				return fmt.Errorf("migration %d: %w", v+1, err)
			}
		}
		if _, err := ptx.Exec(ctx, "UPDATE schema_version SET version = $1", SchemaVersion); err != nil {
			return err
		}
		return ensureMarks(ctx, ptx)
	}))
}

func (s *Store) mismatch(why string) *stick.Error {
	return stick.Errorf(stick.CodeDBSchemaMismatch, "cannot use the %s: %s", s.where, why).
		With("supported_schema_version", SchemaVersion).
		WithHint("give the URL of another database, or an empty one")
}

// ensureMarks makes the process_marks table (marksSchema) unless it
// exists; it is asked first, so that a user who may not create tables
// opens a database that has it.
func ensureMarks(ctx context.Context, ptx pgx.Tx) error {
	var has bool
	if err := ptx.QueryRow(ctx, "SELECT to_regclass('process_marks') IS NOT NULL").Scan(&has); err != nil || has {
		return err
	}
	_, err := ptx.Exec(ctx, marksSchema)
	return err
}
