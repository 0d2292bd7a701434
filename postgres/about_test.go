package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// About names the database without its password, its server's version and
// schema, the stick processes connected, and a write holding the lock.
func TestAbout(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	a, b := openStore(t, u), openStore(t, u)
	got, err := a.About(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != postgres.SchemaVersion || got.ServerVersion == "" || got.Processes != 2 || got.WriterFor != 0 ||
		!strings.Contains(got.Where, "PostgreSQL database") {
		t.Fatalf("two stores, no write: %+v", got)
	}
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- b.Update(ctx, func(stick.Tx) error { close(held); <-release; return nil })
	}()
	<-held
	time.Sleep(20 * time.Millisecond) // the write's age, measured by the server's clock
	got, err = a.About(ctx)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got.WriterFor < 20*time.Millisecond || got.WriterApp != postgres.AppName || got.WriterPID == 0 {
		t.Fatalf("a write holding the lock: %+v", got)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// A closed connection's backend leaves pg_stat_activity a moment later.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got, err = a.About(ctx)
		if err == nil && got.Processes == 1 && got.WriterFor == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after one store closed: %+v, %v", got, err)
		}
	}
}
