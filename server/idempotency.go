package server

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/stickhq/stick/internal/replay"
	"github.com/stickhq/stick/stick"
)

// Bounds of the idempotency cache: the answers it keeps, for how long, and
// the largest answer kept.
const (
	maxReplays   = 4096
	replayTTL    = 24 * time.Hour
	maxReplayLen = 1 << 20
)

// replays keeps the answers to writes that carried an Idempotency-Key
// (see package replay): by the credential, the client and the key, with
// the method, path and body they answered. Answers of status 500 and up
// are not kept (the write may not have happened; a retry should try it),
// nor answers larger than maxReplayLen. It is in memory, so a write
// retried across a restart of the hub is done again; the protocol's
// fencing (lease and turn) and notes' client_message_id keep most of
// them harmless.
type replays struct {
	cache *replay.Cache[replayKey]
}

// replayKey is whose key it is: the credential, the client and the key.
type replayKey struct {
	token, client, key string
}

// kept is one write's answer, as the cache keeps it.
type kept struct {
	status      int
	contentType string
	body        []byte
}

func newReplays(now func() time.Time) *replays {
	return &replays{cache: replay.New[replayKey](now, maxReplays, replayTTL)}
}

// begin looks the key up (see replay.Cache.Begin): a first use returns a
// new entry that the caller serves and then ends with finish; a repeat
// returns the first answer; another request is idempotency_key_reused.
func (rs *replays) begin(ctx context.Context, k replayKey, method, path string, body []byte) (e *replay.Entry[replayKey], first bool, err error) {
	return rs.cache.Begin(ctx, k, method+" "+path, body)
}

// finish records the answer of a first use.
func (rs *replays) finish(e *replay.Entry[replayKey], status int, contentType string, body []byte) {
	keep := status != 0 && status < 500 && len(body) <= maxReplayLen
	rs.cache.Finish(e, kept{status: status, contentType: contentType, body: bytes.Clone(body)}, keep)
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
	if err := replay.CheckKey(key); err != nil {
		s.writeError(w, r, err)
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
		a := rp.Value().(kept)
		infoOf(r).replayed = true
		w.Header().Set("Content-Type", a.contentType)
		w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
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
