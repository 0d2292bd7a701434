package stick

import (
	"context"
	"time"
)

// MaxReplayLen bounds the answer a Replay keeps: a larger one is not kept.
const MaxReplayLen = 1 << 20

// A Replay is the answer a frontend gave to a write that carried an
// idempotency key, kept in the store so that a client that lost the
// answer (a dropped connection, a hub that was killed and restarted)
// retries the write and gets the first answer, and the write is not done
// twice. The frontend decides what the key, the request and the answer
// are; the store keeps them as they are.
type Replay struct {
	// Key says whose key it is: a digest of the client and the key it
	// sent (at most MaxReplayKeyLen bytes). The Service adds the
	// principal it acts for, so the store's key is longer.
	Key string
	// Request says what was asked: the same key with another request is
	// refused rather than answered with what another request got.
	Request string
	// Answer is the answer as the frontend sent it (at most MaxReplayLen).
	Answer []byte
	// At is when it was kept.
	At time.Time
}

// FindReplay returns the answer kept under key by KeepReplay of a
// Service acting for the same principal, if it was kept less than ttl
// ago; ok is false when there is none.
// A Service that acts for a principal sees only the answers it kept, so a
// credential can never read another's answers, whatever key it names.
func (s *Service) FindReplay(ctx context.Context, key string, ttl time.Duration) (r Replay, ok bool, err error) {
	if err := checkReplayKey(key); err != nil {
		return Replay{}, false, err
	}
	err = s.store.View(ctx, func(tx Tx) error {
		r, ok, err = tx.Replay(s.replayScope(key))
		return err
	})
	if err != nil || !ok || s.clock.Now().Sub(r.At) > ttl {
		return Replay{}, false, err
	}
	r.Key = key
	return r, true, nil
}

// KeepReplay keeps r (its At set to now) for ttl, and forgets the answers
// kept longer ago than that.
func (s *Service) KeepReplay(ctx context.Context, r Replay, ttl time.Duration) error {
	if err := checkReplayKey(r.Key); err != nil {
		return err
	}
	if len(r.Answer) > MaxReplayLen {
		return Errorf(CodeInvalidArgument, "a replay's answer must be at most %d bytes, not %d", MaxReplayLen, len(r.Answer)).With("field", "answer")
	}
	now := s.clock.Now().Truncate(time.Millisecond)
	r.At, r.Key = now, s.replayScope(r.Key)
	return s.store.Update(ctx, func(tx Tx) error { return tx.KeepReplay(r, now.Add(-ttl)) })
}

// MaxReplayKeyLen bounds a Replay's key.
const MaxReplayKeyLen = 128

func checkReplayKey(key string) error {
	if key == "" || len(key) > MaxReplayKeyLen {
		return Errorf(CodeInvalidArgument, "a replay's key must be 1 to %d bytes, not %d", MaxReplayKeyLen, len(key)).With("field", "key")
	}
	return nil
}

// replayScope is the key under which the store keeps key: prefixed with
// the principal's token, so principals never share answers.
func (s *Service) replayScope(key string) string {
	if s.principal == nil {
		return "-/" + key
	}
	return s.principal.TokenID + "/" + key
}
