package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// One schema version number names one schema for both stores.
func TestSchemaVersionIsTheSQLiteStores(t *testing.T) {
	if postgres.SchemaVersion != store.SchemaVersion {
		t.Fatalf("postgres.SchemaVersion %d, store.SchemaVersion %d: a migration of one store needs its twin", postgres.SchemaVersion, store.SchemaVersion)
	}
}

func admin(t *testing.T, u, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
}

// A database of a newer schema, or of another application, is refused
// with db_schema_mismatch, and left as it was.
func TestSchemaMismatch(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	st, err := postgres.Open(ctx, u, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	admin(t, u, "UPDATE schema_version SET version = 999")
	if _, err := postgres.Open(ctx, u, postgres.Options{}); stick.ErrorCode(err) != stick.CodeDBSchemaMismatch {
		t.Fatalf("open a database of schema 999: %v; want db_schema_mismatch", err)
	}
	other := pgtest.URL(t)
	admin(t, other, "CREATE TABLE orders (id int)")
	if _, err := postgres.Open(ctx, other, postgres.Options{}); stick.ErrorCode(err) != stick.CodeDBSchemaMismatch {
		t.Fatalf("open a database of another application: %v; want db_schema_mismatch", err)
	}
}

// A write that waits for the write lock longer than the busy timeout
// fails with db_busy; a server that cannot be reached is db_unavailable.
func TestErrorsAreCoded(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	a, err := postgres.Open(ctx, u, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := postgres.Open(ctx, u, postgres.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.Update(ctx, func(stick.Tx) error { close(held); <-release; return nil })
	}()
	<-held
	err = b.Update(ctx, func(stick.Tx) error { return nil })
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if stick.ErrorCode(err) != stick.CodeDBBusy {
		t.Fatalf("a write behind a held write lock: %v; want db_busy", err)
	}
	_, err = postgres.Open(ctx, "postgres://nobody@/none?host=/nonexistent-socket-dir&connect_timeout=2", postgres.Options{})
	if stick.ErrorCode(err) != stick.CodeDBUnavailable {
		t.Fatalf("open on a server that is not there: %v; want db_unavailable", err)
	}
}
