package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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

// listener is a Store's one connection that LISTENs for commits, and
// holds the locks of the marks of the processes this one stands for (see
// Store.Mark). When the connection is lost it connects again by itself,
// takes every mark again, and wakes every waiter once it listens again,
// since notifications sent meanwhile are lost: a missed notification
// costs latency, never correctness.
type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
	marks  *markSet
	// listens counts the connections that listened, the first one
	// included; it grows after a reconnect's waiters were woken.
	listens atomic.Int64
}

// startListener connects and listens before it returns, so that every
// commit after Open is heard.
func startListener(ctx context.Context, cfg *pgx.ConnConfig, w *waiters, marks *markSet) (*listener, error) {
	conn, err := listen(ctx, cfg)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{}), marks: marks}
	l.listens.Store(1)
	go l.run(lctx, cfg, conn, w)
	return l, nil
}

// The TCP keepalive the server keeps on a listening connection unless
// the database URL sets these settings: a host that vanished without
// closing its connections (power loss, a cut network) is noticed, and
// its marks let go, within idle + interval * count (25 s).
var serverKeepAlive = [][2]string{
	{"tcp_keepalives_idle", "10"},
	{"tcp_keepalives_interval", "5"},
	{"tcp_keepalives_count", "3"},
}

func listen(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, kv := range serverKeepAlive {
		if _, set := cfg.RuntimeParams[kv[0]]; set {
			continue
		}
		if _, err := conn.Exec(ctx, "SELECT set_config($1, $2, false)", kv[0], kv[1]); err != nil {
			_ = conn.Close(context.Background())
			return nil, err
		}
	}
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// retakeEvery is how often the listener tries again to take a mark's
// lock that the session it lost still held.
const retakeEvery = 250 * time.Millisecond

// run hears notifications until stop, reconnecting with a backoff of up
// to 2 s after a loss.
func (l *listener) run(ctx context.Context, cfg *pgx.ConnConfig, conn *pgx.Conn, w *waiters) {
	defer close(l.done)
	backoff := 50 * time.Millisecond
	for {
		for conn != nil {
			n, err := l.next(ctx, conn)
			if err != nil {
				_ = conn.Close(context.Background())
				conn = nil
				l.marks.lost()
				w.wakeAll()
				break
			}
			backoff = 50 * time.Millisecond
			if n != nil {
				w.heard(n.Payload)
			}
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

// next makes conn hold the marks wanted, then waits for a notification.
// It returns none, and no error, when the marks wanted changed or a mark
// is due to be taken again: the wait is cut short by its context, which
// leaves the connection usable.
func (l *listener) next(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	retry, err := l.marks.sync(ctx, conn)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var again <-chan time.Time
	if retry {
		t := time.NewTimer(retakeEvery)
		defer t.Stop()
		again = t.C
	}
	go func() {
		select {
		case <-l.marks.kick:
			if wctx.Err() != nil {
				l.marks.poke() // it came after this wait: the next one's
			}
			cancel()
		case <-again:
			cancel()
		case <-wctx.Done():
		}
	}()
	n, err := conn.WaitForNotification(wctx)
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() == nil && !conn.IsClosed() {
		return nil, nil
	}
	return n, err
}

// stop ends the listener and closes its connection.
func (l *listener) stop() {
	l.cancel()
	<-l.done
}
