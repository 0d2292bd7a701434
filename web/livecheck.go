package web

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
)

// A live stream outlasts the check of its credential when it opened: a
// token revoked, or an open hub that made its first token, must end it.
// So every stream checks its credential again, as the request that opened
// it would be checked now (who: its Bearer header, its session cookie, or
// the open hub's local reader), at its keep-alive ticks and before it
// sends events or a fragment, at most once every credentialGap, so a busy
// stream does not read the store for every event. A credential that no
// longer stands, or stands for another principal, ends the stream with a
// "signedout" event, after which the stream sends nothing.

// credentialGap is the least time between two checks of one stream's
// credential.
const credentialGap = 5 * time.Second

// signedOut is the last event of a stream whose credential no longer
// stands: the page's script shows its data and does not reconnect.
var signedOut = sseEvent("signedout", "You are signed out: the token this page was read with was revoked or expired, or the hub now needs a token. Sign in again to see the room live.")

// liveCheck checks one stream's credential again.
type liveCheck struct {
	h *Handler
	r *http.Request
	// key is the principal the stream opened as (feedKey's form).
	key string
	out *sseOut
	// end ends the stream's context.
	end context.CancelFunc

	mu   sync.Mutex
	last time.Time
	gone bool
}

// newLiveCheck checks the stream of r, opened as v, writing to out; end
// ends its context. The credential was checked just now.
func (h *Handler) newLiveCheck(r *http.Request, v viewer, out *sseOut, end context.CancelFunc) *liveCheck {
	return &liveCheck{h: h, r: r, key: feedKey(v.principal, ""), out: out, end: end, last: h.cfg.Now()}
}

// ok reports whether the stream may go on sending: its credential stood
// at its last check, which is at most credentialGap old. A credential
// that no longer stands ends the stream (signedout, then nothing). An
// error of the hub in checking (db_busy, rate_limited, ...) leaves the
// stream up, to be checked again at the next gap.
func (c *liveCheck) ok() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return false
	}
	now := c.h.cfg.Now()
	if now.Sub(c.last) < credentialGap && !now.Before(c.last) {
		return true
	}
	c.last = now
	v, err := c.h.who(headerOnly{}, c.r)
	switch {
	case errors.Is(err, errSignIn) || stick.ErrorCode(err) == stick.CodeUnauthenticated:
	case err != nil:
		return true
	case feedKey(v.principal, "") == c.key:
		return true
	}
	c.gone = true
	c.out.last(signedOut)
	c.end()
	return false
}

// headerOnly is a ResponseWriter that keeps nothing: who may set a header
// (a cleared cookie, WWW-Authenticate) on a response long since sent.
type headerOnly struct{}

func (headerOnly) Header() http.Header         { return http.Header{} }
func (headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (headerOnly) WriteHeader(int)             {}
