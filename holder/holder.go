package holder

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/stickhq/stick/stick"
)

// Holder gets the stick for one member and keeps it: a guardian process
// runs one for a terminal command, and 'stick hold' runs one in the
// foreground. It never releases by itself: a holder that stops without a
// release leaves the room to see its holder gone.
type Holder struct {
	// Service is the stick service it calls.
	Service *stick.Service
	// Caller is the member it acts as, with the process that stands for it.
	Caller stick.Caller
	// Log receives the heartbeat failures Keep retries; nil discards them.
	Log *log.Logger
}

// Wait asks for the stick in the room until it comes, takeover opens, the
// room closes or timeout passes (0: until one of the others). One call of
// the service blocks at most stick.MaxWaitLimit; Wait asks again until its
// own deadline.
func (h *Holder) Wait(ctx context.Context, roomID string, timeout time.Duration) (stick.WaitResult, error) {
	return h.wait(ctx, roomID, false, timeout)
}

// Try asks for the stick in the room once, without waiting.
func (h *Holder) Try(ctx context.Context, roomID string) (stick.WaitResult, error) {
	return h.wait(ctx, roomID, true, 0)
}

func (h *Holder) wait(ctx context.Context, roomID string, try bool, timeout time.Duration) (stick.WaitResult, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		req := stick.WaitRequest{RoomID: roomID}
		switch {
		case try:
			req.MaxWait = new(time.Duration)
		case !deadline.IsZero():
			left := min(max(time.Until(deadline), 0), stick.MaxWaitLimit)
			req.MaxWait = &left
		}
		res, err := h.Service.WaitForTurn(ctx, h.Caller, req)
		if err != nil || res.Status != stick.NotYet || try ||
			(!deadline.IsZero() && !time.Now().Before(deadline)) {
			return res, err
		}
	}
}

// Takeover takes the stick over in the room at the given turn, or at the
// current one when turn is 0.
func (h *Holder) Takeover(ctx context.Context, roomID string, turn int64, reason string) (stick.TakeoverResult, error) {
	if turn == 0 {
		st, err := h.Service.RoomState(ctx, roomID)
		if err != nil {
			return stick.TakeoverResult{}, err
		}
		turn = st.TurnID
	}
	return h.Service.Takeover(ctx, h.Caller, roomID, turn, reason)
}

// Keep heartbeats the lease, first at next, then at the cadence each
// heartbeat gives, until the lease is lost or ctx ends, and says why it
// stopped: the cause of ctx, or why the lease is no longer valid. A
// heartbeat that fails for another reason is retried until the lease
// would have expired.
func (h *Holder) Keep(ctx context.Context, lease stick.Lease, next, expires time.Time) string {
	timer := time.NewTimer(time.Until(next))
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
				return c.Error()
			}
			return "stopped"
		case <-timer.C:
		}
		hb, err := h.Service.Heartbeat(ctx, h.Caller, lease)
		switch code := stick.ErrorCode(err); {
		case err == nil:
			expires = hb.LeaseExpiresAt
			timer.Reset(time.Until(hb.NextHeartbeatAt))
		case code == stick.CodeStaleLease || code == stick.CodeTurnMismatch || code == stick.CodeRoomClosed || code == stick.CodeRoomNotFound:
			return "the lease is no longer valid: " + err.Error()
		case !time.Now().Before(expires):
			return "the lease became stale: " + err.Error()
		default:
			if h.Log != nil {
				h.Log.Printf("heartbeat failed, retrying: %v", err)
			}
			timer.Reset(min(5*time.Second, max(time.Until(expires)/2, 100*time.Millisecond)))
		}
	}
}

// Cause returns err, unless ctx ended with a cause of its own (the anchor
// exited, the starter went away): then a canceled error that says why.
func Cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && ctx.Err() != nil {
		return stick.Errorf(stick.CodeCanceled, "%v", c)
	}
	return err
}
