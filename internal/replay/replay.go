// Package replay keeps the answers to writes that carried an idempotency
// key, so that a client that lost an answer (a connection that dropped, a
// proxy that could not tell whether its call arrived) sends the write
// again and gets the first answer, and nothing is done twice. The hub's
// JSON API keeps its HTTP answers in one (Idempotency-Key), its MCP
// endpoint the results of tool calls in another.
//
// A cache is in memory: bounded (the oldest answers dropped first, none
// older than its TTL). Made with a Codec, it also keeps every answer in
// the store through a Keeper (the principal's stick.Service) before the
// answer is sent, and looks there for an answer it does not hold, so a
// write retried after the hub was restarted still gets its first answer.
package replay

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/internal/printable"
	"github.com/stickhq/stick/stick"
)

// CodeReused: the idempotency key was used before for another request.
const CodeReused stick.Code = "idempotency_key_reused"

// MaxKeyLen bounds an idempotency key.
const MaxKeyLen = 255

// CheckKey refuses, with invalid_argument on Idempotency-Key, a key that is
// not 1 to MaxKeyLen printable ASCII characters.
func CheckKey(key string) error {
	if len(key) > MaxKeyLen || !printable.ASCII(key) {
		return stick.Errorf(stick.CodeInvalidArgument, "the Idempotency-Key must be 1 to %d printable ASCII characters", MaxKeyLen).
			With("field", "Idempotency-Key").WithHint("use a random string such as a UUID")
	}
	return nil
}

// Cache keeps answers by key K (whose key it is: the credential, the
// client, the key). With each answer it keeps the request it answered,
// so the same key with another request is refused (CodeReused) rather
// than answered with what another request got. A Cache is safe for
// concurrent use.
type Cache[K comparable] struct {
	mu    sync.Mutex
	now   func() time.Time
	max   int
	ttl   time.Duration
	byKey map[K]*list.Element
	order *list.List // of *Entry[K], the oldest first
	// codec, when set, is how answers are kept in the store (Persistent).
	codec *Codec[K]
}

// Keeper keeps answers in the store: the stick.Service of the principal
// whose answers they are.
type Keeper interface {
	FindReplay(ctx context.Context, key string, ttl time.Duration) (stick.Replay, bool, error)
	KeepReplay(ctx context.Context, r stick.Replay, ttl time.Duration) error
}

// Codec says how a Persistent cache keeps its answers in the store: the
// name of a key (with what the cache is for, so two caches never share
// one), and an answer as bytes and back.
type Codec[K comparable] struct {
	Name   func(K) string
	Encode func(any) ([]byte, error)
	Decode func([]byte) (any, error)
}

// keepTimeout bounds keeping an answer in the store, which goes on when
// the request that made it was cancelled: a client that is gone is the
// one that will retry.
const keepTimeout = 5 * time.Second

// Entry is one write's answer, or the write still being served.
type Entry[K comparable] struct {
	key     K
	request string
	sum     [sha256.Size]byte
	at      time.Time
	done    chan struct{}
	value   any
	kept    bool
}

// Persistent returns a cache like New's that also keeps its answers in
// the store, as codec says.
func Persistent[K comparable](now func() time.Time, max int, ttl time.Duration, codec Codec[K]) *Cache[K] {
	c := New[K](now, max, ttl)
	c.codec = &codec
	return c
}

// Value is the answer Finish kept.
func (e *Entry[K]) Value() any { return e.value }

// New returns a cache of at most max answers, none kept longer than ttl,
// on the clock now.
func New[K comparable](now func() time.Time, max int, ttl time.Duration) *Cache[K] {
	return &Cache[K]{now: now, max: max, ttl: ttl, byKey: map[K]*list.Element{}, order: list.New()}
}

// Begin looks k up for request (what the write is: a method and path, a
// tool's name) with body (what it carries), in memory and then, for a
// Persistent cache with a Keeper, in the store. A first use returns a new
// entry that the caller serves and then ends with Finish; a use that
// repeats an earlier write waits for its answer and returns it (first is
// false); a use with another request or body is CodeReused. A wait ends
// with ctx's error when ctx ends first.
func (c *Cache[K]) Begin(ctx context.Context, kp Keeper, k K, request string, body []byte) (e *Entry[K], first bool, err error) {
	sum := sha256.Sum256(body)
	looked := false
	for {
		c.mu.Lock()
		c.expire()
		if el, ok := c.byKey[k]; ok {
			e := el.Value.(*Entry[K])
			c.mu.Unlock()
			if e.request != request || e.sum != sum {
				return nil, false, reused(e.request)
			}
			select {
			case <-e.done:
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
			if e.kept {
				return e, false, nil
			}
			continue // the first try was not kept (it may not have been done): serve this one
		}
		if !looked && kp != nil && c.codec != nil {
			c.mu.Unlock()
			looked = true
			if err := c.load(ctx, kp, k); err != nil {
				return nil, false, err
			}
			continue
		}
		e := &Entry[K]{key: k, request: request, sum: sum, at: c.now(), done: make(chan struct{})}
		c.byKey[k] = c.order.PushBack(e)
		c.trim()
		c.mu.Unlock()
		return e, true, nil
	}
}

// load looks k up in the store and, when an answer younger than the TTL
// is kept there and k is still not in memory, puts it in memory.
func (c *Cache[K]) load(ctx context.Context, kp Keeper, k K) error {
	r, ok, err := kp.FindReplay(ctx, c.storeKey(k), c.ttl)
	if err != nil || !ok {
		return err
	}
	// The request is kept with the digest of its body after the last
	// newline (a request, a path, may hold one).
	i := strings.LastIndexByte(r.Request, '\n')
	if i < 0 {
		return fmt.Errorf("replay: the store keeps %q for a request it cannot read", r.Request)
	}
	request, sumHex := r.Request[:i], r.Request[i+1:]
	var sum [sha256.Size]byte
	if n, err := hex.Decode(sum[:], []byte(sumHex)); err != nil || n != len(sum) {
		return fmt.Errorf("replay: the store keeps %q for a request it cannot read", r.Request)
	}
	value, err := c.codec.Decode(r.Answer)
	if err != nil {
		return fmt.Errorf("replay: the store keeps an answer it cannot read: %w", err)
	}
	// In memory it lives from now on: the store's clock may not be the
	// cache's, and the store has said it is young enough.
	e := &Entry[K]{key: k, request: request, sum: sum, at: c.now(), done: make(chan struct{}), value: value, kept: true}
	close(e.done)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[k]; !ok {
		c.byKey[k] = c.order.PushBack(e)
		c.trim()
	}
	return nil
}

// storeKey is the key under which the store keeps k's answer: a digest of
// its name, so neither the client's key nor its name is kept as it is.
func (c *Cache[K]) storeKey(k K) string {
	sum := sha256.Sum256([]byte(c.codec.Name(k)))
	return hex.EncodeToString(sum[:])
}

func reused(request string) error {
	return stick.Errorf(CodeReused, "the Idempotency-Key was used for another request (%s)", request).
		With("field", "Idempotency-Key").WithHint("use a new key for every new write; send the same key only to retry the same request")
}

// trim drops the oldest answers beyond the bound. c.mu is held.
func (c *Cache[K]) trim() {
	for c.order.Len() > c.max {
		c.drop(c.order.Front())
	}
}

// Finish records the answer of a first use, kept when keep is set (a
// write that may not have been done is not kept: its retry should try
// it again). A Persistent cache with a Keeper keeps it in the store
// first, even when ctx was cancelled, and returns what that failed with;
// the answer is kept in memory all the same.
func (c *Cache[K]) Finish(ctx context.Context, kp Keeper, e *Entry[K], value any, keep bool) error {
	var err error
	if keep && kp != nil && c.codec != nil {
		err = c.keep(ctx, kp, e, value)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e.kept = keep
	if keep {
		e.value = value
	} else if el, ok := c.byKey[e.key]; ok && el.Value == e {
		c.drop(el)
	}
	close(e.done)
	return err
}

// keep keeps e's answer in the store. An answer too large for the store
// is kept in memory only.
func (c *Cache[K]) keep(ctx context.Context, kp Keeper, e *Entry[K], value any) error {
	answer, err := c.codec.Encode(value)
	if err != nil {
		return fmt.Errorf("replay: keep an answer: %w", err)
	}
	if len(answer) > stick.MaxReplayLen {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keepTimeout)
	defer cancel()
	r := stick.Replay{Key: c.storeKey(e.key), Request: e.request + "\n" + hex.EncodeToString(e.sum[:]), Answer: answer}
	return kp.KeepReplay(ctx, r, c.ttl)
}

// Len returns how many answers the cache holds (or is waiting for).
func (c *Cache[K]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(c.order.Len(), len(c.byKey))
}

// expire drops the answers older than the TTL.
func (c *Cache[K]) expire() {
	for el := c.order.Front(); el != nil && c.now().Sub(el.Value.(*Entry[K]).at) > c.ttl; el = c.order.Front() {
		c.drop(el)
	}
}

func (c *Cache[K]) drop(el *list.Element) {
	e := c.order.Remove(el).(*Entry[K])
	if c.byKey[e.key] == el {
		delete(c.byKey, e.key)
	}
}

// Redelivered reports whether a retry of the tool (an MCP tool's name, or
// the tool a JSON API endpoint stands for) gets its answer again without
// it being kept in the store: a wait that granted the turn is answered
// again, with the same turn and handoff, by the next wait of the same
// member and process (the holder's redelivery). Such answers are kept in
// memory only, which spares the store a write on every handoff.
func Redelivered(tool string) bool { return tool == "wait_for_turn" }

// Kept reports whether a tool call's answer with the error code is kept:
// not for a code that says the call may not have been done (a busy or
// failing store, a call cancelled or cut short), whose retry should run
// again. A success (code "") is kept.
func Kept(code stick.Code) bool {
	switch code {
	case stick.CodeDBBusy, stick.CodeCanceled, stick.CodeInternal, stick.CodeSearchUnavailable, stick.CodeDBSchemaMismatch,
		stick.CodeUnsupportedFilesystem, stick.CodeDataDir, stick.CodeDBCorrupt, stick.CodeHarness:
		return false
	}
	return true
}
