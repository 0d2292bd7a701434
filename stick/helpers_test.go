package stick_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/internal/testkit"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

func TestMain(m *testing.M) {
	if _, err := testStore(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testproc.Register("sleep", func([]string) int {
		time.Sleep(time.Hour)
		return 0
	})
	registerWorkers()
	testproc.Main(m, pgtest.Start())
}

var epoch = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// storeEnv names the store the behaviour tests run on, one of testStores;
// unset, they run on SQLite.
const storeEnv = "STICK_TEST_STORE"

// testStores open a fresh, empty store of each kind for one test, closed
// when the test ends. The behaviour tests run on the one storeEnv names:
// adding a store to them is one line here.
var testStores = map[string]func(t *testing.T) (stick.Store, error){
	"sqlite": func(t *testing.T) (stick.Store, error) { return store.OpenDir(t.TempDir(), store.Options{}) },
	"postgres": func(t *testing.T) (stick.Store, error) {
		return postgres.Open(context.Background(), pgtest.URL(t), postgres.Options{})
	},
}

// testStore returns the opener of the store storeEnv names, or an error
// that lists the known ones: an unknown name fails the whole run rather
// than skip a store silently.
func testStore() (func(t *testing.T) (stick.Store, error), error) {
	name := os.Getenv(storeEnv)
	if name == "" {
		name = "sqlite"
	}
	open, ok := testStores[name]
	if !ok {
		return nil, fmt.Errorf("%s=%q names no store the tests know; use one of %v", storeEnv, name, slices.Sorted(maps.Keys(testStores)))
	}
	return open, nil
}

// openStore opens a fresh store of the kind storeEnv names for t.
func openStore(t *testing.T) stick.Store {
	t.Helper()
	open, err := testStore()
	if err != nil {
		t.Fatal(err)
	}
	st, err := open(t)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// env is one test's world: a fresh store (SQLite unless storeEnv names
// another), a manual clock, a workspace directory that is a git top level,
// and a Service over them.
type env struct {
	t     *testing.T
	ctx   context.Context
	clock *testclock.Clock
	store stick.Store
	svc   *stick.Service
	repo  string
	// probes counts liveness checks, to assert reads stay cheap.
	probes *countingLiveness
}

type countingLiveness struct {
	inner stick.Liveness
	n     int
}

func (c *countingLiveness) Check(p stick.Process) procid.Status {
	c.n++
	return c.inner.Check(p)
}

func (c *countingLiveness) Watch(ctx context.Context, p stick.Process) (<-chan struct{}, bool) {
	return c.inner.(stick.ExitWatcher).Watch(ctx, p)
}

func newEnv(t *testing.T, opts ...stick.Option) *env {
	t.Helper()
	st := openStore(t)
	e := &env{t: t, ctx: context.Background(), clock: testclock.New(epoch), store: st, probes: &countingLiveness{inner: procid.Checker{}}}
	e.repo = mkRepo(t)
	opts = append([]stick.Option{stick.WithClock(e.clock), stick.WithLiveness(e.probes)}, opts...)
	e.svc = newService(t, st, opts...)
	return e
}

// mkRepo returns a temporary git top level.
func mkRepo(t testing.TB) string { return testkit.Repo(t) }

// agent returns a caller without process facts: judged by timeouts only.
func agent(id string) stick.Caller { return stick.Caller{AgentID: id, Kind: stick.KindProcess} }

// liveAgent returns a caller whose liveness is a real child process, and a
// function that SIGKILLs that process.
func liveAgent(t *testing.T, id string) (stick.Caller, func()) {
	t.Helper()
	p := testproc.Start(t, "sleep")
	ident, err := procid.Of(p.PID())
	if err != nil {
		t.Fatalf("identity of child: %v", err)
	}
	return stick.Caller{AgentID: id, Kind: stick.KindHarness, Process: ident}, func() {
		if err := p.Kill(); err != nil {
			t.Fatalf("kill: %v", err)
		}
	}
}

func (e *env) join(c stick.Caller) stick.JoinResult {
	e.t.Helper()
	res, err := e.svc.JoinPath(e.ctx, c, stick.JoinRequest{Path: e.repo})
	if err != nil {
		e.t.Fatalf("join %s: %v", c.AgentID, err)
	}
	return res
}

func noWait() *time.Duration { d := time.Duration(0); return &d }

// try makes one non-blocking wait_for_turn attempt.
func (e *env) try(c stick.Caller, room string) stick.WaitResult {
	e.t.Helper()
	res, err := e.svc.WaitForTurn(e.ctx, c, stick.WaitRequest{RoomID: room, MaxWait: noWait()})
	if err != nil {
		e.t.Fatalf("wait_for_turn %s: %v", c.AgentID, err)
	}
	return res
}

// claim asserts that c gets the stick now and returns its lease.
func (e *env) claim(c stick.Caller, room string) stick.WaitResult {
	e.t.Helper()
	res := e.try(c, room)
	if res.Status != stick.YourTurn {
		e.t.Fatalf("%s: want your_turn, got %+v", c.AgentID, res)
	}
	return res
}

func handoff(status string) stick.Handoff {
	return stick.Handoff{Status: status, NextAction: "continue after: " + status}
}

func (e *env) release(c stick.Caller, l stick.Lease, status string) stick.ReleaseResult {
	e.t.Helper()
	res, err := e.svc.Release(e.ctx, c, l, handoff(status))
	if err != nil {
		e.t.Fatalf("release %s: %v", c.AgentID, err)
	}
	return res
}

func (e *env) state(room string) stick.RoomStatus {
	e.t.Helper()
	st, err := e.svc.RoomState(e.ctx, room)
	if err != nil {
		e.t.Fatalf("room state: %v", err)
	}
	return st
}

// wantCode asserts err is a stick error with the code, and returns it.
func wantCode(t *testing.T, err error, code stick.Code) *stick.Error {
	t.Helper()
	var se *stick.Error
	if !errors.As(err, &se) {
		t.Fatalf("want error %s, got %v", code, err)
	}
	if se.Code != code {
		t.Fatalf("want error %s, got %s: %s (details %v)", code, se.Code, se.Message, se.Details)
	}
	if se.Message == "" {
		t.Fatalf("error %s has no message", code)
	}
	return se
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// newService returns a Service over st or fails the test.
func newService(t testing.TB, st stick.Store, opts ...stick.Option) *stick.Service {
	t.Helper()
	svc, err := stick.New(st, opts...)
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	return svc
}
