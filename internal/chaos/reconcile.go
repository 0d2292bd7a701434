package chaos

import (
	"context"
	"strconv"

	"github.com/stickhq/stick/stick"
)

// A call whose answer was lost leaves its outcome unknown to the agent
// when the proxy's retry cannot return it. The hub keeps the answer of a
// write in its store before sending it, so a retry after a restart gets
// it; only a hub killed between a write's commit and keeping its answer
// (microseconds) runs the retry again, and the protocol's fencing
// answers it (a release of a turn that ended is stale_lease; a takeover
// of a turn that was taken over is turn_mismatch, and the taker's next
// wait_for_turn gives it its turn back, as a takeover). A careful client
// then reads the room's log to learn what happened, as the agent does
// here: the checks still hold it to what the log says, once.

// roomLog reads the room's whole event log.
func (a *agent) roomLog(ctx context.Context) ([]stick.Event, error) {
	var all []stick.Event
	var after int64
	for {
		page, err := a.cl.events(ctx, a.room, after)
		if err != nil {
			return nil, err
		}
		all = append(all, page.Events...)
		if !page.HasMore || page.Cursor <= after {
			return all, nil
		}
		after = page.Cursor
	}
}

// handedOn finds the agent's release or pass of turn with token tok in
// the room's log.
func (a *agent) handedOn(ctx context.Context, turn int64, tok string) (stick.Event, bool, error) {
	events, err := a.roomLog(ctx)
	if err != nil {
		return stick.Event{}, false, err
	}
	for _, ev := range events {
		if (ev.Type == stick.EventRelease || ev.Type == stick.EventPass) && ev.From == a.id && ev.TurnID == turn {
			if t, ok := handoffToken(ev.Handoff); ok && t == tok {
				return ev, true, nil
			}
		}
	}
	return stick.Event{}, false, nil
}

// unsure handles a release or pass of g that failed with err. When the
// lease was gone (stale_lease, turn_mismatch), the hand-on may have
// committed with its answer lost: if the log has it, it is reported as
// handed (and as found); otherwise the lease was lost (see lost).
func (a *agent) unsure(ctx context.Context, op string, g grant, tok string, err error) error {
	if code := stick.ErrorCode(err); code == stick.CodeStaleLease || code == stick.CodeTurnMismatch {
		ev, ok, lerr := a.handedOn(ctx, g.lease.TurnID, tok)
		if lerr != nil {
			if err := a.report("events", lerr); err != nil {
				return err
			}
		}
		if ok {
			if err := a.say(msgFound, op); err != nil {
				return err
			}
			return a.say(msgHanded, strconv.FormatInt(ev.Seq, 10), string(ev.Type), tok)
		}
	}
	return a.lost(op, g, err)
}

// takenOver returns the token of the newest handoff before the agent's
// takeover of turn: what its takeover's answer, which was lost, showed
// (TakeoverResult.RecentHandoff), and what a your_turn that gives a taken
// over turn back does not show. noToken when there is none.
func (a *agent) takenOver(ctx context.Context, turn int64) (string, error) {
	events, err := a.roomLog(ctx)
	if err != nil {
		return "?", err
	}
	tok := noToken
	for _, ev := range events {
		switch {
		case ev.Type == stick.EventTakeover && ev.TurnID == turn && ev.From == a.id:
			return tok, nil
		case ev.Type == stick.EventRelease || ev.Type == stick.EventPass:
			tok = tokenOrMark(ev.Handoff)
		}
	}
	return "?", nil
}
