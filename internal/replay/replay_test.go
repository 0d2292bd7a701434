package replay

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// memKeeper is a store's replays in a map, on the caches' clock.
type memKeeper struct {
	mu   sync.Mutex
	now  func() time.Time
	kept map[string]stick.Replay
}

func (m *memKeeper) FindReplay(_ context.Context, key string, ttl time.Duration) (stick.Replay, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.kept[key]
	if !ok || m.now().Sub(r.At) > ttl {
		return stick.Replay{}, false, nil
	}
	return r, true, nil
}

func (m *memKeeper) KeepReplay(ctx context.Context, r stick.Replay, _ time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r.At = m.now()
	m.kept[r.Key] = r
	return nil
}

func stringCodec() Codec[string] {
	return Codec[string]{
		Name:   func(k string) string { return "test\x00" + k },
		Encode: func(v any) ([]byte, error) { return []byte(v.(string)), nil },
		Decode: func(b []byte) (any, error) { return string(b), nil },
	}
}

// A persistent cache keeps an answer in the store before Finish returns,
// even for a request already cancelled; a new cache on the same store
// (a restarted hub) answers a retry with it, refuses the key with another
// request or body, and forgets it after the TTL. An answer not kept (the
// write may not have been done) is not in the store.
func TestPersistentSurvivesARestart(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	kp := &memKeeper{now: clock, kept: map[string]stick.Replay{}}
	first := Persistent(clock, 16, time.Hour, stringCodec())
	ctx, cancel := context.WithCancel(context.Background())
	e, isFirst, err := first.Begin(ctx, kp, "k", "POST /notes", []byte("body"))
	if err != nil || !isFirst {
		t.Fatal(isFirst, err)
	}
	cancel()
	if err := first.Finish(ctx, kp, e, "the first answer", true); err != nil {
		t.Fatal(err)
	}
	e, _, _ = first.Begin(context.Background(), kp, "busy", "POST /notes", nil)
	if err := first.Finish(context.Background(), kp, e, "db_busy", false); err != nil {
		t.Fatal(err)
	}
	if len(kp.kept) != 1 {
		t.Fatalf("%d answers in the store, want the one kept", len(kp.kept))
	}
	for k := range kp.kept {
		if len(k) != 64 || strings.Trim(k, "0123456789abcdef") != "" {
			t.Fatalf("the store's key %q is not a digest: it may show the client's key", k)
		}
	}

	restarted := Persistent(clock, 16, time.Hour, stringCodec())
	e, isFirst, err = restarted.Begin(context.Background(), kp, "k", "POST /notes", []byte("body"))
	if err != nil || isFirst || e.Value() != "the first answer" {
		t.Fatalf("a retry after a restart: %v %v %v", e, isFirst, err)
	}
	for _, tc := range []struct{ request, body string }{{"POST /doc", "body"}, {"POST /notes", "other"}} {
		again := Persistent(clock, 16, time.Hour, stringCodec())
		if _, _, err := again.Begin(context.Background(), kp, "k", tc.request, []byte(tc.body)); stick.ErrorCode(err) != CodeReused {
			t.Errorf("the key with %s %q after a restart: %v, want %s", tc.request, tc.body, err, CodeReused)
		}
	}
	if _, isFirst, _ := restarted.Begin(context.Background(), kp, "busy", "POST /notes", nil); !isFirst {
		t.Error("an answer not kept was replayed after a restart")
	}
	now = now.Add(2 * time.Hour)
	later := Persistent(clock, 16, time.Hour, stringCodec())
	if _, isFirst, err := later.Begin(context.Background(), kp, "k", "POST /notes", []byte("body")); err != nil || !isFirst {
		t.Errorf("an answer older than the TTL: first %v, %v", isFirst, err)
	}
}
