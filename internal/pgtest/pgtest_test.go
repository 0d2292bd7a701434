package pgtest_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// Each test gets a database of its own, empty, that it can write.
func TestURLGivesAFreshDatabase(t *testing.T) {
	a, b := pgtest.URL(t), pgtest.URL(t)
	if a == b {
		t.Fatalf("two databases with one URL %s", a)
	}
	ctx := context.Background()
	for _, u := range []string{a, b} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n); err != nil || n != 0 {
			t.Fatalf("a fresh database has %d tables (%v); want 0", n, err)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE t (x int)"); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
	}
}
