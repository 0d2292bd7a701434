package server

import (
	"math"
	"sync"
	"time"
)

// Failed authentications a client address may make at once, and how fast
// it earns them back: a client that misspelt its token a few times goes
// on, a guesser is slowed to one guess a second.
const (
	failBurst = 10
	failEvery = time.Second
	// maxBuckets bounds the addresses remembered; past it, the buckets
	// already full again are forgotten (they hold nothing a fresh one
	// would not).
	maxBuckets = 10000
)

// limiter is a token bucket per client address, spent by failed
// authentications only.
type limiter struct {
	mu      sync.Mutex
	now     func() time.Time
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, buckets: map[string]*bucket{}}
}

// fill returns addr's bucket topped up to now.
func (l *limiter) fill(addr string) *bucket {
	now := l.now()
	b, ok := l.buckets[addr]
	if !ok {
		return &bucket{tokens: failBurst, at: now}
	}
	b.tokens = math.Min(failBurst, b.tokens+now.Sub(b.at).Seconds()/failEvery.Seconds())
	b.at = now
	return b
}

// wait returns how long addr must wait before it may try again: 0 when it
// may now.
func (l *limiter) wait(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.fill(addr)
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(failEvery))
}

// fail spends one of addr's tokens for a failed authentication.
func (l *limiter) fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.fill(addr)
	b.tokens = math.Max(0, b.tokens-1)
	if len(l.buckets) >= maxBuckets {
		for a := range l.buckets {
			if l.fill(a).tokens >= failBurst {
				delete(l.buckets, a)
			}
		}
	}
	l.buckets[addr] = b
}
