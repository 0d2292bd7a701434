package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel is the channel of the NOTIFY every writing commit sends.
const notifyChannel = "stick_commit"

// maxPayload keeps a notification below PostgreSQL's 8000-byte limit; a
// commit that rang more bells than fit wakes every waiter instead.
const maxPayload = 7000

// notice is a notification's payload: the store that sent it, so that it
// does not wake its own waiters twice, and the bells the commit rang; All
// rings every bell.
type notice struct {
	From  string   `json:"s"`
	Bells []string `json:"b,omitempty"`
	All   bool     `json:"a,omitempty"`
}

// waiters are the channels a Store hands out: one closed at the next
// commit, and one per bell.
type waiters struct {
	id string // this store's id in notifications

	mu    sync.Mutex
	next  chan struct{}
	bells map[string]chan struct{}
}

func newWaiters() *waiters {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &waiters{id: hex.EncodeToString(b), bells: map[string]chan struct{}{}}
}

func bellKey(room, agent string) string { return room + "\x00" + agent }

// changed returns the channel closed at the next commit.
func (w *waiters) changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next == nil {
		w.next = make(chan struct{})
	}
	return w.next
}

// rung returns the channel closed at the next commit that rings the bell.
func (w *waiters) rung(room, agent string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	k := bellKey(room, agent)
	ch := w.bells[k]
	if ch == nil {
		ch = make(chan struct{})
		w.bells[k] = ch
	}
	return ch
}

// ring wakes the waiters on the next commit and those on bells.
func (w *waiters) ring(bells []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next != nil {
		close(w.next)
		w.next = nil
	}
	for _, k := range bells {
		if ch := w.bells[k]; ch != nil {
			close(ch)
			delete(w.bells, k)
		}
	}
}

// wakeAll wakes every waiter: after the listener missed notifications,
// and at Close.
func (w *waiters) wakeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next != nil {
		close(w.next)
		w.next = nil
	}
	for k, ch := range w.bells {
		close(ch)
		delete(w.bells, k)
	}
}

// payload is the notification of a commit that rang bells.
func (w *waiters) payload(bells []string) string {
	b, _ := json.Marshal(notice{From: w.id, Bells: bells})
	if len(b) > maxPayload {
		b, _ = json.Marshal(notice{From: w.id, All: true})
	}
	return string(b)
}

// heard handles a notification: another store's commit.
func (w *waiters) heard(payload string) {
	var n notice
	if err := json.Unmarshal([]byte(payload), &n); err != nil || n.All {
		w.wakeAll()
		return
	}
	if n.From == w.id {
		return // rung at the commit already
	}
	w.ring(n.Bells)
}

// listener is a Store's one connection that LISTENs for commits. When
// the connection is lost it connects again by itself, and wakes every
// waiter once it listens again, since notifications sent meanwhile are
// lost: a missed notification costs latency, never correctness.
type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
	// listens counts the connections that listened, the first one
	// included; it grows after a reconnect's waiters were woken.
	listens atomic.Int64
}

// startListener connects and listens before it returns, so that every
// commit after Open is heard.
func startListener(ctx context.Context, cfg *pgx.ConnConfig, w *waiters) (*listener, error) {
	conn, err := listen(ctx, cfg)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{})}
	l.listens.Store(1)
	go l.run(lctx, cfg, conn, w)
	return l, nil
}

func listen(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// run hears notifications until stop, reconnecting with a backoff of up
// to 2 s after a loss.
func (l *listener) run(ctx context.Context, cfg *pgx.ConnConfig, conn *pgx.Conn, w *waiters) {
	defer close(l.done)
	backoff := 50 * time.Millisecond
	for {
		for conn != nil {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				_ = conn.Close(context.Background())
				conn = nil
				w.wakeAll()
				break
			}
			backoff = 50 * time.Millisecond
			w.heard(n.Payload)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
		c, err := listen(ctx, cfg)
		if err == nil {
			conn = c
			w.wakeAll()
			l.listens.Add(1)
		}
	}
}

// stop ends the listener and closes its connection.
func (l *listener) stop() {
	l.cancel()
	<-l.done
}
