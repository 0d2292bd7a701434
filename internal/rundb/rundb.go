package rundb

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shirou/gopsutil/v4/process"
	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// DB is where a run's store lives.
type DB struct {
	// Dir is the data directory: the SQLite database's, or, on
	// PostgreSQL, the directory whose files the run's processes keep
	// besides the database.
	Dir string
	// URL is the PostgreSQL database of the run; empty for SQLite.
	URL string
}

// Inherited is the DB of a child process given dir on its command line:
// PostgreSQL when its parent set storeurl.Env in its environment (see
// Env), else SQLite in dir.
func Inherited(dir string) DB {
	return DB{Dir: dir, URL: os.Getenv(storeurl.Env)}
}

// Postgres reports whether the store is a PostgreSQL database.
func (d DB) Postgres() bool { return d.URL != "" }

// Open opens the store, making the SQLite database or the PostgreSQL
// schema when there is none.
func (d DB) Open(ctx context.Context) (stick.Store, error) {
	if d.Postgres() {
		return storeurl.Open(ctx, d.URL)
	}
	return store.OpenDir(d.Dir, store.Options{})
}

// Env is the environment a child process (a role of the run, 'stick
// mcp', 'stick serve') needs to open the same store: the data directory,
// and the database URL or, for SQLite, an empty one, so that a URL in
// this program's own environment does not leak to the child.
func (d DB) Env() []string {
	return []string{store.DataDirEnv + "=" + d.Dir, storeurl.Env + "=" + d.URL}
}

// NoDatabase is the environment entry that keeps a child on its own
// SQLite database whatever its parent's environment says: for a process
// that stands for another host (a proxy in front of a hub).
func NoDatabase() string { return storeurl.Env + "=" }

// String names the store for messages: the data directory, or the
// database's URL with its password hidden.
func (d DB) String() string {
	if d.Postgres() {
		return "PostgreSQL database " + storeurl.Redact(d.URL)
	}
	return fmt.Sprintf("SQLite database in %s", d.Dir)
}

// LocalBackends returns the process ids of the PostgreSQL server's
// processes that serve connections to the database (its backends),
// other than the one asking, when they run on this host: their processor
// time is part of what the run's processes cost. It returns none for
// SQLite, or for a server on another host.
func (d DB) LocalBackends(ctx context.Context) ([]int, error) {
	if !d.Postgres() {
		return nil, nil
	}
	conn, err := pgx.Connect(ctx, d.URL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %s", d, scrub(err.Error(), d.URL))
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
	if err != nil {
		return nil, fmt.Errorf("%s: %s", d, scrub(err.Error(), d.URL))
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fmt.Errorf("%s: %s", d, scrub(err.Error(), d.URL))
	}
	var local []int
	for _, pid := range pids {
		// The same pid on this host is the backend only if it is a
		// PostgreSQL server process.
		if p, err := process.NewProcessWithContext(ctx, pid); err == nil {
			if name, err := p.NameWithContext(ctx); err == nil && strings.HasPrefix(name, "postgres") {
				local = append(local, int(pid))
			}
		}
	}
	return local, nil
}

// Settle brings a PostgreSQL database that was just filled in bulk to
// the steady state of one in use for a while: its tables vacuumed and
// analysed, which autovacuum would otherwise do in the next minutes,
// while the run measures, and a checkpoint written where the user may.
// It does nothing on SQLite.
func (d DB) Settle(ctx context.Context) error {
	if !d.Postgres() {
		return nil
	}
	conn, err := pgx.Connect(ctx, d.URL)
	if err != nil {
		return fmt.Errorf("connect to %s: %s", d, scrub(err.Error(), d.URL))
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "VACUUM (ANALYZE)"); err != nil {
		return fmt.Errorf("%s: %s", d, scrub(err.Error(), d.URL))
	}
	// CHECKPOINT needs a superuser (or pg_checkpoint): without one, the
	// server's own checkpoints come when they come.
	_, _ = conn.Exec(ctx, "CHECKPOINT")
	return nil
}
