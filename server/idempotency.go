package server

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
)

// Bounds of the idempotency cache: the answers it keeps, for how long, and
// the largest answer kept.
const (
	maxReplays   = 4096
	replayTTL    = 24 * time.Hour
	maxReplayLen = 1 << 20
	// maxKeyLen bounds an Idempotency-Key.
	maxKeyLen = 255
)

// replays keeps the answers to writes that carried an Idempotency-Key, so
// that a client that lost an answer (a connection that dropped, a hub that
// restarted its proxy) sends the write again and gets the first answer,
// and nothing is done twice. An answer is kept by the credential, the
// client and the key; with it the method, path and body it answered, so
// the same key with another request is refused (idempotency_key_reused,
// 422) rather than answered with what another request got.
//
// It is in memory: bounded (maxReplays answers, the oldest dropped
// first, none older than replayTTL) and lost when the hub stops. A write
// retried across a restart of the hub is done again; the protocol's
// fencing (lease and turn) and notes' client_message_id keep most of them
// harmless.
type replays struct {
	mu    sync.Mutex
	now   func() time.Time
	byKey map[replayKey]*list.Element
	order *list.List // of *replay, the oldest first
}

// replayKey is whose key it is: the credential, the client and the key.
type replayKey struct {
	token, client, key string
}

// replay is one write's answer, or the write still being served (done
// open).
type replay struct {
	key         replayKey
	method      string
	path        string
	sum         [sha256.Size]byte
	at          time.Time
	done        chan struct{}
	status      int
	contentType string
	body        []byte
	kept        bool
}

func newReplays(now func() time.Time) *replays {
	return &replays{now: now, byKey: map[replayKey]*list.Element{}, order: list.New()}
}

// begin looks the key up. A first use returns a new replay that the caller
// serves and then ends with finish; a use that repeats an earlier request
// waits for its answer and returns it (first is false); a use with
// another request is idempotency_key_reused.
func (rs *replays) begin(ctx context.Context, k replayKey, method, path string, body []byte) (rp *replay, first bool, err error) {
	sum := sha256.Sum256(body)
	for {
		rs.mu.Lock()
		rs.expire()
		if el, ok := rs.byKey[k]; ok {
			rp := el.Value.(*replay)
			rs.mu.Unlock()
			if rp.method != method || rp.path != path || rp.sum != sum {
				return nil, false, stick.Errorf(CodeIdempotencyKeyReused, "the Idempotency-Key was used for another request (%s %s)", rp.method, rp.path).
					With("field", "Idempotency-Key").WithHint("use a new key for every new write; send the same key only to retry the same request")
			}
			select {
			case <-rp.done:
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
			if rp.kept {
				return rp, false, nil
			}
			continue // the first try was not kept (it failed with a 5xx): serve this one
		}
		rp := &replay{key: k, method: method, path: path, sum: sum, at: rs.now(), done: make(chan struct{})}
		rs.byKey[k] = rs.order.PushBack(rp)
		for rs.order.Len() > maxReplays {
			rs.drop(rs.order.Front())
		}
		rs.mu.Unlock()
		return rp, true, nil
	}
}

// finish records the answer of a first use: kept unless its status is a
// server error (the write may not have happened; a retry should try it)
// or it is too large.
func (rs *replays) finish(rp *replay, status int, contentType string, body []byte) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rp.status, rp.contentType = status, contentType
	rp.kept = status != 0 && status < 500 && len(body) <= maxReplayLen
	if rp.kept {
		rp.body = bytes.Clone(body)
	} else if el, ok := rs.byKey[rp.key]; ok && el.Value == rp {
		rs.drop(el)
	}
	close(rp.done)
}

// expire drops the answers older than replayTTL.
func (rs *replays) expire() {
	for el := rs.order.Front(); el != nil && rs.now().Sub(el.Value.(*replay).at) > replayTTL; el = rs.order.Front() {
		rs.drop(el)
	}
}

func (rs *replays) drop(el *list.Element) {
	rp := rs.order.Remove(el).(*replay)
	if rs.byKey[rp.key] == el {
		delete(rs.byKey, rp.key)
	}
}

// idempotent serves a write with an Idempotency-Key through the cache: a
// repeat gets the first answer again, with Idempotent-Replayed: true.
// body is the request's body, already read.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, body []byte, serve func(http.ResponseWriter)) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		serve(w)
		return
	}
	if len(key) > maxKeyLen || !printableASCII(key) {
		s.writeError(w, r, stick.Errorf(stick.CodeInvalidArgument, "the Idempotency-Key must be 1 to %d printable ASCII characters", maxKeyLen).
			With("field", "Idempotency-Key").WithHint("use a random string such as a UUID"))
		return
	}
	p, _ := stick.PrincipalFrom(r.Context())
	k := replayKey{token: p.TokenID, client: clientName(r), key: key}
	rp, first, err := s.replays.begin(r.Context(), k, r.Method, r.URL.Path, body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !first {
		infoOf(r).replayed = true
		w.Header().Set("Content-Type", rp.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(rp.body)))
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(rp.status)
		_, _ = w.Write(rp.body)
		return
	}
	rec := &statusWriter{ResponseWriter: w, keep: &bytes.Buffer{}}
	defer func() { s.replays.finish(rp, rec.status, rec.Header().Get("Content-Type"), rec.keep.Bytes()) }()
	serve(rec)
}

// printableASCII reports whether s is non-empty printable ASCII.
func printableASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
