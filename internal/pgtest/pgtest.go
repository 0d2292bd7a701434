package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var (
	mu      sync.Mutex
	started bool
	server  *cluster // nil when an existing server is used, or none could be had
	admin   string   // the URL of the database tests' databases are created from
	missing error    // why there is no server
	counter atomic.Int64
)

// Main runs the tests of m with a PostgreSQL server for them: the one
// STICK_TEST_DATABASE_URL names, else a throwaway cluster started at the
// first URL and stopped after the tests. Call it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	stop := Start()
	defer stop()
	return m.Run()
}

// Start lets the tests of this binary call URL, for a TestMain that runs
// the tests itself; the server is the one STICK_TEST_DATABASE_URL names,
// else a throwaway cluster started at the first URL. Call stop after the
// tests: it stops that cluster.
func Start() (stop func()) {
	mu.Lock()
	started = true
	mu.Unlock()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if server != nil {
			server.stop()
			server = nil
		}
	}
}

// connect finds the server the first time a test asks for one.
func connect() {
	if admin != "" || missing != nil {
		return
	}
	if u := os.Getenv(URLEnv); u != "" {
		admin = u
	} else if c, err := startCluster(); err != nil {
		missing = err
	} else {
		server, admin = c, c.url("postgres")
	}
}

// URL creates a fresh, empty database for t and returns its URL; the
// database is dropped when t ends. Without a server it skips t, or fails
// it when STICK_REQUIRE_POSTGRES=1 or CI is set, saying how to install
// PostgreSQL.
func URL(t testing.TB) string {
	t.Helper()
	mu.Lock()
	if started {
		connect()
	}
	ok, base, why := started, admin, missing
	mu.Unlock()
	if !ok {
		t.Fatal("pgtest: call pgtest.Main from the package's TestMain before pgtest.URL")
	}
	if base == "" {
		msg := fmt.Sprintf("no PostgreSQL to test with: %v; %s", why, installHint)
		if os.Getenv(RequireEnv) == "1" || os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	name := fmt.Sprintf("stick_test_%d_%d", os.Getpid(), counter.Add(1))
	if err := adminExec(base, `CREATE DATABASE "`+name+`" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`); err != nil {
		t.Fatalf("pgtest: create the test's database: %v", err)
	}
	t.Cleanup(func() {
		if err := adminExec(base, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("pgtest: drop the test's database: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL: %v", URLEnv, err)
	}
	u.Path = "/" + name
	return u.String()
}

// adminExec runs one statement on the database of base.
func adminExec(base, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
