package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// An Opener makes a fresh, empty store for the test t and returns open,
// which opens a handle on that store each time it is called: the first
// call the handle a test starts with, each later one another handle on
// the same data, as another process or host sharing the store would open
// it. open is called from t's goroutine only, and may end the test with
// t.Fatal when the store cannot be opened. The suite closes every handle
// it opened before t ends, and before the cleanups the Opener registered
// with t (such as removing t.TempDir) run; it never closes a handle
// twice, so open need not register a Close of its own.
type Opener func(t *testing.T) (open func() stick.Store)

// DefaultWakeWithin is Harness.WakeWithin's default.
const DefaultWakeWithin = 5 * time.Second

// Harness is what the suite needs to know of a store.
type Harness struct {
	// Open makes the stores the suite tests. Required.
	Open Opener
	// WakeWithin is how soon after a commit a Changed channel taken before
	// it, or a Rung channel of a bell it rang, must be closed (the store's
	// fallback poll interval, with room to spare for a loaded machine),
	// and how long a read or a write of one handle may take while a
	// transaction of another is open; DefaultWakeWithin when zero. Only a
	// broken store makes a test wait that long.
	WakeWithin time.Duration
	// NoSearch says the store has no full-text search: the suite then
	// checks only that Tx.Search answers search_unavailable, as the
	// contract allows such a store to. A store with search leaves it
	// false, and its searches are held to every rule of Tx.Search.
	NoSearch bool
	// SpuriousBells says the store's Rung channels may be closed by
	// commits that did not ring their bell (the contract allows it: a
	// waiter then reads again and finds nothing new). The suite then
	// checks only that a bell rung by a commit wakes its waiters, not that
	// a rolled-back transaction, a View or another member's bell leave
	// them asleep. A store whose bells wake exactly the waiters a commit
	// concerns leaves it false.
	SpuriousBells bool
}

// Run runs the conformance suite against the stores h.Open makes, as
// subtests of t, one fresh store each.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil {
		t.Fatal("storetest: Harness.Open is nil: give an Opener that makes a fresh store per test")
	}
	if h.WakeWithin <= 0 {
		h.WakeWithin = DefaultWakeWithin
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) { c.fn(newEnv(t, h)) })
			}
		})
	}
}

// A group is a set of cases on one part of the contract.
type group struct {
	name  string
	cases []testCase
}

type testCase struct {
	name string
	fn   func(e *env)
}

// groups is the whole suite, in the order it runs.
var groups = []group{
	{"Rooms", roomCases},
	{"Members", memberCases},
	{"Events", eventCases},
	{"Documents", docCases},
	{"Search", searchCases},
	{"Channels", channelCases},
	{"Tokens", tokenCases},
	{"HubSettings", hubSettingsCases},
	{"Replays", replayCases},
	{"Transactions", txCases},
	{"Wake", wakeCases},
}

// env is one test's store: its first handle, and the means to open more.
type env struct {
	t   *testing.T
	h   Harness
	ctx context.Context
	// s is the first handle.
	s    stick.Store
	open func() stick.Store

	mu     sync.Mutex
	closed []stick.Store // handles closed already, by the test or at its end
}

func newEnv(t *testing.T, h Harness) *env {
	open := h.Open(t)
	if open == nil {
		t.Fatal("storetest: the Opener returned no open function")
	}
	e := &env{t: t, h: h, ctx: t.Context(), open: open}
	e.s = e.handle()
	return e
}

// handle opens another handle on the test's store, closed when the test
// ends.
func (e *env) handle() stick.Store {
	e.t.Helper()
	s := e.open()
	if s == nil {
		e.t.Fatal("storetest: open returned a nil store")
	}
	e.t.Cleanup(func() {
		if err := e.close(s); err != nil {
			e.t.Errorf("close a handle at the end of the test: %v", err)
		}
	})
	return s
}

// close closes s unless it was closed already.
func (e *env) close(s stick.Store) error {
	e.mu.Lock()
	if slices.Contains(e.closed, s) {
		e.mu.Unlock()
		return nil
	}
	e.closed = append(e.closed, s)
	e.mu.Unlock()
	return s.Close()
}

// update runs fn in an Update of s and fails the test on an error.
func (e *env) update(s stick.Store, fn func(stick.Tx) error) {
	e.t.Helper()
	if err := s.Update(e.ctx, fn); err != nil {
		e.t.Fatalf("update: %v", err)
	}
}

// view runs fn in a View of s and fails the test on an error.
func (e *env) view(s stick.Store, fn func(stick.Tx) error) {
	e.t.Helper()
	if err := s.View(e.ctx, fn); err != nil {
		e.t.Fatalf("view: %v", err)
	}
}

// read returns what fn reads in a View of the first handle, failing the
// test on an error.
func read[T any](e *env, fn func(stick.Tx) (T, error)) T {
	e.t.Helper()
	var out T
	e.view(e.s, func(tx stick.Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	return out
}

// write runs fn in an Update of the first handle and returns what it
// gives, failing the test on an error.
func write[T any](e *env, fn func(stick.Tx) (T, error)) T {
	e.t.Helper()
	return writeOn(e, e.s, fn)
}

// writeOn is write on the handle s.
func writeOn[T any](e *env, s stick.Store, fn func(stick.Tx) (T, error)) T {
	e.t.Helper()
	var out T
	e.update(s, func(tx stick.Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	return out
}

// closedWithin reports whether ch is closed within d. A nil channel is
// never closed.
func closedWithin(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ch:
		return true
	case <-timer.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// isClosed reports whether ch is closed now.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// errRollback is the plain error of a function that asks for a rollback.
var errRollback = errors.New("storetest: roll back")
