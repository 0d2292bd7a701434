// Package replay keeps the answers to writes that carried an idempotency
// key, so that a client that lost an answer (a connection that dropped, a
// proxy that could not tell whether its call arrived) sends the write
// again and gets the first answer, and nothing is done twice. The hub's
// JSON API keeps its HTTP answers in one (Idempotency-Key), its MCP
// endpoint the results of tool calls in another.
//
// A cache is in memory: bounded (the oldest answers dropped first, none
// older than its TTL) and lost when its process stops.
package replay

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
)

// CodeReused: the idempotency key was used before for another request.
const CodeReused stick.Code = "idempotency_key_reused"

// MaxKeyLen bounds an idempotency key.
const MaxKeyLen = 255

// CheckKey refuses, with invalid_argument on Idempotency-Key, a key that is
// not 1 to MaxKeyLen printable ASCII characters.
func CheckKey(key string) error {
	ok := key != "" && len(key) <= MaxKeyLen
	for i := 0; ok && i < len(key); i++ {
		ok = key[i] >= ' ' && key[i] <= '~'
	}
	if !ok {
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
}

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

// Value is the answer Finish kept.
func (e *Entry[K]) Value() any { return e.value }

// New returns a cache of at most max answers, none kept longer than ttl,
// on the clock now.
func New[K comparable](now func() time.Time, max int, ttl time.Duration) *Cache[K] {
	return &Cache[K]{now: now, max: max, ttl: ttl, byKey: map[K]*list.Element{}, order: list.New()}
}

// Begin looks k up for request (what the write is: a method and path, a
// tool's name) with body (what it carries). A first use returns a new
// entry that the caller serves and then ends with Finish; a use that
// repeats an earlier write waits for its answer and returns it (first is
// false); a use with another request or body is CodeReused. A wait ends
// with ctx's error when ctx ends first.
func (c *Cache[K]) Begin(ctx context.Context, k K, request string, body []byte) (e *Entry[K], first bool, err error) {
	sum := sha256.Sum256(body)
	for {
		c.mu.Lock()
		c.expire()
		if el, ok := c.byKey[k]; ok {
			e := el.Value.(*Entry[K])
			c.mu.Unlock()
			if e.request != request || e.sum != sum {
				return nil, false, stick.Errorf(CodeReused, "the Idempotency-Key was used for another request (%s)", e.request).
					With("field", "Idempotency-Key").WithHint("use a new key for every new write; send the same key only to retry the same request")
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
		e := &Entry[K]{key: k, request: request, sum: sum, at: c.now(), done: make(chan struct{})}
		c.byKey[k] = c.order.PushBack(e)
		for c.order.Len() > c.max {
			c.drop(c.order.Front())
		}
		c.mu.Unlock()
		return e, true, nil
	}
}

// Finish records the answer of a first use, kept when keep is set (a
// write that may not have been done is not kept: its retry should try
// it again).
func (c *Cache[K]) Finish(e *Entry[K], value any, keep bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.kept = keep
	if keep {
		e.value = value
	} else if el, ok := c.byKey[e.key]; ok && el.Value == e {
		c.drop(el)
	}
	close(e.done)
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
