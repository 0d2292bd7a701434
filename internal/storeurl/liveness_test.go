package storeurl_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// unknown answers Unknown for everyone: the fallback the tests give.
type unknown struct{}

func (unknown) Check(stick.Process) procid.Status { return procid.Unknown }

// A Later held for a process marks it once it opens, not before and
// without opening it; its liveness judges by the marks once it is open,
// so a process of another host is alive while the Later is open and
// gone once it is closed while that process does not run on this host.
func TestLaterHoldsAndJudgesByMarks(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	p := stick.Process{HostID: "host-b", BootID: "boot-b", PID: 4242, StartedAt: time.Now().UTC().Truncate(time.Millisecond)}
	opened := make(chan struct{})
	later := storeurl.OpenLater(func() (stick.Store, error) {
		defer close(opened)
		return storeurl.Open(ctx, u)
	})
	live, ok := storeurl.Liveness(later, unknown{})
	if !ok {
		t.Fatal("no liveness for a Later")
	}
	reported := make(chan error, 1)
	later.Hold(p, func(err error) { reported <- err })
	select {
	case <-opened:
		t.Fatal("Hold opened the store")
	case <-time.After(100 * time.Millisecond):
	}
	later.Start()
	<-opened

	judge, err := storeurl.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer judge.Close()
	other, _ := storeurl.Liveness(judge, unknown{})
	deadline := time.Now().Add(10 * time.Second)
	for other.Check(p) != procid.Alive || live.Check(p) != procid.Alive {
		select {
		case err := <-reported:
			t.Fatal(err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("a held process: %v to another store, %v to the Later's; want alive", other.Check(p), live.Check(p))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := later.Close(); err != nil {
		t.Fatal(err)
	}
	// The server lets the lock go once the closed connection's backend
	// has ended, a moment after the close.
	for deadline := time.Now().Add(10 * time.Second); other.Check(p) != procid.Gone; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a process of another host whose Later closed: %v; want gone", other.Check(p))
		}
	}
	if _, ok := storeurl.Liveness(nil, unknown{}); ok {
		t.Fatal("a liveness for a store that is not PostgreSQL's")
	}
	if _, ok := other.(*postgres.Marks); !ok {
		t.Fatalf("the liveness of a PostgreSQL store: %T", other)
	}
}
