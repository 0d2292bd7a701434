package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/stick"
)

// openStore opens a Store on u, closed when t ends.
func openStore(t *testing.T, u string) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), u, postgres.Options{})
	if err != nil {
		t.Fatalf("open the store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// backends returns the pids of the connections to u's database whose
// application_name is app and whose state is state ("" for any).
func backends(t *testing.T, u, app, state string) []int32 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = $1 AND ($2 = '' OR state = $2) ORDER BY pid`, app, state)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// terminate ends the server process of the connection pid, as a server
// restart or a failover would.
func terminate(t *testing.T, u string, pid int32) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT pg_terminate_backend($1, 10000)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("terminate backend %d: %v %v", pid, ok, err)
	}
}

// closes fails t unless ch closes within a generous bound.
func closes(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: not woken", what)
	}
}

// A Store whose listening connection is terminated wakes every waiter,
// on Changed and on each bell, since it may have missed notifications;
// it listens again by itself, and a commit made after that by another
// Store on the database wakes its waiters as before.
func TestListenerReconnects(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	a := openStore(t, u)
	listeners := backends(t, u, postgres.ListenerAppName, "")
	if len(listeners) != 1 {
		t.Fatalf("one store, %d listening connections (%s)", len(listeners), postgres.ListenerAppName)
	}
	b := openStore(t, u)

	changed, rung := a.Changed(), a.Rung("r1", "alice")
	terminate(t, u, listeners[0])
	closes(t, changed, "Changed, when the listening connection was lost")
	closes(t, rung, "Rung, when the listening connection was lost")

	deadline := time.Now().Add(30 * time.Second)
	for a.ListenerListens() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the store did not listen again within 30 s of losing its listening connection")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if now := backends(t, u, postgres.ListenerAppName, ""); len(now) != 2 || now[0] == listeners[0] || now[1] == listeners[0] {
		t.Fatalf("listening connections after the reconnect: %v (the lost one was %d); want two others", now, listeners[0])
	}

	changed, rung, other := a.Changed(), a.Rung("r1", "alice"), a.Rung("r1", "bob")
	if err := b.Update(ctx, func(tx stick.Tx) error {
		tx.Ring("r1", "alice")
		return tx.CreateRoom(stick.Room{ID: "r1", Path: "/w/r1", State: stick.StateIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()})
	}); err != nil {
		t.Fatal(err)
	}
	closes(t, changed, "Changed, by another store's commit after the reconnect")
	closes(t, rung, "Rung, by another store's commit that rang the bell after the reconnect")
	select {
	case <-other:
		t.Fatal("a bell the commit did not ring was woken")
	default:
	}
}

// A write whose connection the server ends before the commit fails with
// db_unavailable and changes nothing, whether the loss shows at its next
// statement or at the commit; the store's next write succeeds on another
// connection.
func TestWriteCutOffChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		next bool // write again after the loss, instead of committing
	}{{"at the next statement", true}, {"at the commit", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			u := pgtest.URL(t)
			a := openStore(t, u)
			room := func(id string) stick.Room {
				return stick.Room{ID: id, Path: "/w/" + id, State: stick.StateIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()}
			}
			err := a.Update(ctx, func(tx stick.Tx) error {
				if err := tx.CreateRoom(room("r1")); err != nil {
					return err
				}
				inTx := backends(t, u, postgres.AppName, "idle in transaction")
				if len(inTx) != 1 {
					t.Fatalf("connections in a transaction: %v; want the write's one", inTx)
				}
				terminate(t, u, inTx[0])
				if tc.next {
					return tx.CreateRoom(room("r2"))
				}
				return nil
			})
			if stick.ErrorCode(err) != stick.CodeDBUnavailable {
				t.Fatalf("a write whose connection was terminated: %v; want db_unavailable", err)
			}

			b := openStore(t, u)
			if err := b.View(ctx, func(tx stick.Tx) error {
				for _, id := range []string{"r1", "r2"} {
					if _, ok, err := tx.Room(id); err != nil || ok {
						t.Errorf("room %s after the write was cut off: found %v, %v; want nothing", id, ok, err)
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := a.Update(ctx, func(tx stick.Tx) error { return tx.CreateRoom(room("r3")) }); err != nil {
				t.Fatalf("the next write of the store: %v", err)
			}
		})
	}
}

// Pooled connections the server dropped while idle (a restart,
// pg_terminate_backend) fail no call: the next transaction skips them.
func TestDroppedIdleConnectionsAreSkipped(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	a := openStore(t, u)
	// Four transactions at once leave four idle connections in the pool.
	held, release := make(chan struct{}, 4), make(chan struct{})
	done := make(chan error, 4)
	for range 4 {
		go func() {
			done <- a.View(ctx, func(stick.Tx) error { held <- struct{}{}; <-release; return nil })
		}()
	}
	for range 4 {
		<-held
	}
	close(release)
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	idle := backends(t, u, postgres.AppName, "idle")
	if len(idle) < 4 {
		t.Fatalf("idle pooled connections: %v; want 4", idle)
	}
	for _, pid := range idle {
		terminate(t, u, pid)
	}
	for i := range 3 {
		if err := a.Update(ctx, func(tx stick.Tx) error {
			return tx.CreateRoom(stick.Room{ID: fmt.Sprint("r", i), Path: fmt.Sprint("/w/r", i), State: stick.StateIdle, CreatedAt: time.Now(), UpdatedAt: time.Now()})
		}); err != nil {
			t.Fatalf("write %d after the pool's connections were dropped: %v", i, err)
		}
	}
}
