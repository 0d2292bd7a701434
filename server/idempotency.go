package server

import (
	"bytes"
	"context"
	"encoding/json"
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
// the method, path and body they answered, in memory and in the store,
// so a write retried after a lost answer gets the first answer, across
// a restart of the hub too. Answers of status 500 and up are not kept
// (the write may not have been done; a retry should try it), nor answers
// larger than maxReplayLen.
type replays struct {
	cache *replay.Cache[replayKey]
}

// replayKey is whose key it is: the credential, the client and the key.
type replayKey struct {
	token, client, key string
}

// kept is one write's answer, as the cache keeps it.
type kept struct {
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        []byte `json:"body"`
}

func newReplays(now func() time.Time) *replays {
	return &replays{cache: replay.Persistent(now, maxReplays, replayTTL, replay.Codec[replayKey]{
		Name: func(k replayKey) string { return "api\x00" + k.token + "\x00" + k.client + "\x00" + k.key },
		Encode: func(v any) ([]byte, error) {
			return json.Marshal(v.(kept))
		},
		Decode: func(b []byte) (any, error) {
			var k kept
			err := json.Unmarshal(b, &k)
			return k, err
		},
	})}
}

// begin looks the key up (see replay.Cache.Begin): a first use returns a
// new entry that the caller serves and then ends with finish; a repeat
// returns the first answer; another request is idempotency_key_reused.
func (rs *replays) begin(ctx context.Context, svc *stick.Service, k replayKey, method, path string, body []byte) (e *replay.Entry[replayKey], first bool, err error) {
	return rs.cache.Begin(ctx, keeperOf(svc), k, method+" "+path, body)
}

// keeperOf is svc as the cache's Keeper; nil (memory only) for no svc.
func keeperOf(svc *stick.Service) replay.Keeper {
	if svc == nil {
		return nil
	}
	return svc
}

// finish records the answer of a first use.
func (rs *replays) finish(ctx context.Context, svc *stick.Service, e *replay.Entry[replayKey], a kept) error {
	keep := a.Status != 0 && a.Status < 500 && len(a.Body) <= maxReplayLen
	a.Body = bytes.Clone(a.Body)
	return rs.cache.Finish(ctx, keeperOf(svc), e, a, keep)
}

// idempotent serves a write with an Idempotency-Key through the cache: a
// repeat gets the first answer again, with Idempotent-Replayed: true.
// body is the request's body, already read. The first answer is kept in
// the store before it is sent, so a client that got it can count on a
// retry getting it too.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, svc *stick.Service, body []byte, serve func(http.ResponseWriter)) {
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
	rp, first, err := s.replays.begin(r.Context(), svc, k, r.Method, r.URL.Path, body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !first {
		infoOf(r).replayed = true
		w.Header().Set("Idempotent-Replayed", "true")
		writeKept(w, rp.Value().(kept))
		return
	}
	buf := &bufferedWriter{header: w.Header()}
	serve(buf)
	a := kept{Status: buf.status, ContentType: w.Header().Get("Content-Type"), Body: buf.body.Bytes()}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	if err := s.replays.finish(r.Context(), svc, rp, a); err != nil {
		s.log.Warn("an answer was not kept for retries", "request_id", requestID(r), "err", err)
	}
	writeKept(w, a)
}

// writeKept writes a kept answer.
func writeKept(w http.ResponseWriter, a kept) {
	w.Header().Set("Content-Type", a.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(a.Body)))
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
}

// bufferedWriter holds an answer (its headers go to the real writer's)
// until it is kept for retries.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(st int) {
	if w.status == 0 {
		w.status = st
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
