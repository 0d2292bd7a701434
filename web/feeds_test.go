package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
	"github.com/stickhq/stick/web"
)

// theTest marks the context of the test's own calls, which flakyStore
// never fails.
type theTest struct{}

// flakyStore is a real store whose next reads fail on demand, except the
// test's own.
type flakyStore struct {
	stick.Store
	fails atomic.Int64
	code  atomic.Value
}

// failNext makes the next n reads of the page fail with code.
func (f *flakyStore) failNext(n int64, code stick.Code) {
	f.code.Store(code)
	f.fails.Store(n)
}

func (f *flakyStore) View(ctx context.Context, fn func(stick.Tx) error) error {
	for ctx.Value(theTest{}) == nil {
		n := f.fails.Load()
		if n <= 0 {
			break
		}
		if f.fails.CompareAndSwap(n, n-1) {
			return stick.Errorf(f.code.Load().(stick.Code), "the store failed on purpose")
		}
	}
	return f.Store.View(ctx, fn)
}

// newFlakyEnv serves an open hub's page over a flakyStore.
func newFlakyEnv(t *testing.T) (*env, *flakyStore) {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fl := &flakyStore{Store: st}
	svc, err := stick.New(fl)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: context.WithValue(context.Background(), theTest{}, true), svc: svc, open: true}
	h, err := web.New(web.Config{
		ServiceFor: svc.As,
		Open:       func(context.Context) (bool, error) { return true, nil },
		Local:      stick.Principal{Name: "local", Role: stick.AccessOperator},
		Done:       make(chan struct{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(h)
	t.Cleanup(func() { svc.Shutdown(); e.srv.Close() })
	return e, fl
}

func TestLiveListRidesOutABusyStore(t *testing.T) {
	e, fl := newFlakyEnv(t)
	e.join("codex:a1", "alpha")
	s := e.stream(e.client(), "/rooms/live", nil)
	s.next("rooms", ">alpha<")
	// The store stays busy for three reads: the list waits it out and
	// goes on changing.
	fl.failNext(3, stick.CodeDBBusy)
	e.join("claude:b2", "beta")
	s.next("rooms", ">alpha<", ">beta<")
}

func TestLiveListEndsWhenItsWatchFails(t *testing.T) {
	e, fl := newFlakyEnv(t)
	e.join("codex:a1", "alpha")
	c := e.client()
	first := e.stream(c, "/rooms/live", nil)
	first.next("rooms", ">alpha<")
	second := e.stream(c, "/rooms/live", nil)
	second.next("rooms", ">alpha<")
	fl.failNext(1, stick.CodeInternal)
	e.join("claude:b2", "beta")
	// Both streams end, so their browsers reconnect rather than show a
	// list that no longer changes.
	for _, s := range []*sse{first, second} {
		for _, ev := range s.rest() {
			if strings.HasPrefix(ev, "signedout") {
				t.Fatalf("a failed watch signed the reader out: %s", ev)
			}
		}
	}
	// A page that comes now gets a fresh watch.
	again := e.stream(c, "/rooms/live", nil)
	again.next("rooms", ">alpha<", ">beta<")
	e.join("gemini:c3", "gamma")
	again.next("rooms", ">gamma<")
	if st, _ := e.get(c, "/"); st != http.StatusOK {
		t.Fatalf("the list after the failure: %d", st)
	}
}
