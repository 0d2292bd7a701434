package chaos

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stickhq/stick/stick"
)

// How an agent behaves while it holds the stick.
const (
	// safetyMargin is how long before its lease expires an agent stops
	// writing into the critical section unless it renewed: the local
	// margin of a fenced client, which must stop acting before anyone can
	// take over. Only a process paused for longer than this between reading
	// the clock and writing one line could overlap the next holder.
	safetyMargin = time.Second
	// workTick is the pause between two work lines.
	workTick = 40 * time.Millisecond
	// A turn is short (10-150 ms) most of the time, long (300 ms to beyond
	// the lease, so it must heartbeat) with longChance, and a stall (no
	// heartbeat until the lease expires) with stallChance.
	longChance  = 0.15
	stallChance = 0.015
	shortMin    = 10 * time.Millisecond
	shortMax    = 150 * time.Millisecond
	longMin     = 300 * time.Millisecond
	longMax     = 2500 * time.Millisecond
	// lazyBeatMax bounds the pause between heartbeats, chosen per turn from
	// the policy's interval up to it: still well inside the safety margin,
	// but long enough that a library opening takeover before the lease
	// expired would hand a working holder's stick to someone else.
	lazyBeatMax = 700 * time.Millisecond
	// passChance is how often a turn ends with a pass to a random member.
	passChance = 0.25
	// dawdleChance is how often, after a wait returns, an agent pauses for
	// longer than the claim TTL before it waits again, so a reservation for
	// it times out.
	dawdleChance = 0.02
	// handOnTimeout bounds the release or pass at the end of a turn, which
	// runs even when the agent was told to stop.
	handOnTimeout = 5 * time.Second
)

// grant is a turn the agent got: its lease, how (claim or takeover), the
// handoff token it received or saw, and when the lease expires.
type grant struct {
	lease   stick.Lease
	how     string
	token   string
	expires time.Time
}

// plan is what the agent does with a turn: hold it that long, with that
// pause between heartbeats (or none, stalling), then pass or release.
type plan struct {
	hold  time.Duration
	beat  time.Duration
	stall bool
	pass  bool
}

func (a *agent) plan() plan {
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(a.rng.Int64N(int64(hi-lo))) }
	pol := a.policy()
	p := plan{pass: a.rng.Float64() < passChance, beat: between(pol.HeartbeatInterval, lazyBeatMax)}
	switch r := a.rng.Float64(); {
	case r < stallChance:
		p.stall, p.hold = true, 2*pol.OwnerLeaseTTL
	case r < stallChance+longChance:
		p.hold = between(longMin, longMax)
	default:
		p.hold = between(shortMin, shortMax)
	}
	return p
}

// write appends one line to the check file in one write.
func (a *agent) write(line string) error {
	if _, err := a.check.Write([]byte(line)); err != nil {
		return fmt.Errorf("write the check file: %w", err)
	}
	return nil
}

// turn holds the stick: it enters the critical section, works while
// heartbeating (unless it stalls), leaves, and hands on. It returns an
// error only when the agent cannot go on (the check file or stdout failed).
func (a *agent) turn(ctx context.Context, g grant) error {
	turn, id := g.lease.TurnID, a.id
	if err := a.write(enterLine(turn, id, a.pid, g.how, g.token)); err != nil {
		return err
	}
	p := a.plan()
	if p.stall {
		if err := a.say(msgStall, strconv.FormatInt(turn, 10)); err != nil {
			return err
		}
	}
	end := time.Now().Add(p.hold)
	nextBeat := time.Now().Add(p.beat)
	why := "done"
	for n := 1; ; n++ {
		now := time.Now()
		if ctx.Err() != nil {
			why = "stop"
			break
		}
		if !now.Before(g.expires.Add(-safetyMargin)) {
			why = "deadline"
			break
		}
		if !now.Before(end) {
			break
		}
		if err := a.write(workLine(turn, id, a.pid, n)); err != nil {
			return err
		}
		if !p.stall && !now.Before(nextBeat) {
			// A heartbeat that outlasts the safety margin (a hub that
			// restarts) leaves the lease as it was known: the agent
			// stops writing, as at the deadline.
			bctx, cancel := context.WithDeadline(ctx, g.expires.Add(-safetyMargin))
			hb, err := a.cl.heartbeat(bctx, g.lease)
			late := bctx.Err() != nil
			cancel()
			if err != nil && ctx.Err() != nil {
				why = "stop"
				break
			}
			if err != nil && late {
				why = "deadline"
				break
			}
			if err != nil {
				if err := a.write(exitLine(turn, id, a.pid, "lost")); err != nil {
					return err
				}
				return a.lost("heartbeat", g, err)
			}
			g.expires, nextBeat = hb.LeaseExpiresAt, time.Now().Add(p.beat)
		}
		pause := min(workTick, time.Until(end), time.Until(g.expires.Add(-safetyMargin)))
		sleep(ctx, max(pause, 0))
	}
	if err := a.write(exitLine(turn, id, a.pid, why)); err != nil {
		return err
	}
	if why == "deadline" {
		// A stalled (or starved) holder hands on only after its lease ran
		// out, when someone has probably taken over already.
		sleep(ctx, time.Until(g.expires)+time.Duration(a.rng.Int64N(int64(600*time.Millisecond))))
	}
	return a.handOn(ctx, g, p.pass)
}

// handOn releases the stick, or passes it to a random active member,
// with a handoff carrying a token unique to this turn.
func (a *agent) handOn(ctx context.Context, g grant, pass bool) error {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), handOnTimeout)
	defer cancel()
	turn := g.lease.TurnID
	tok := fmt.Sprintf("%s.t%d.%08x", a.id, turn, a.rng.Uint32())
	h := stick.Handoff{
		Status:     tokenPrefix + tok,
		NextAction: "take the stick, write into the check file, and hand it on",
		Artifacts:  []stick.Artifact{{Path: "critical-section.log", Role: stick.RoleOutput, Note: fmt.Sprintf("turn %d", turn)}},
	}
	if pass && ctx.Err() == nil {
		to, err := a.pickTarget(hctx)
		if err != nil {
			return err
		}
		if to != "" {
			res, err := a.cl.pass(hctx, g.lease, to, h)
			switch {
			case err == nil:
				return a.say(msgHanded, strconv.FormatInt(res.EventSeq, 10), string(stick.EventPass), tok)
			case stick.ErrorCode(err) == stick.CodeUnknownMember:
				// The target died or lapsed since the state was read: release instead.
				if err := a.report("pass", err); err != nil {
					return err
				}
			default:
				return a.unsure(hctx, "pass", g, tok, err)
			}
		}
	}
	res, err := a.cl.release(hctx, g.lease, h)
	if err != nil {
		return a.unsure(hctx, "release", g, tok, err)
	}
	return a.say(msgHanded, strconv.FormatInt(res.EventSeq, 10), string(stick.EventRelease), tok)
}

// pickTarget returns a random active member other than the agent, "" when
// there is none.
func (a *agent) pickTarget(ctx context.Context) (string, error) {
	st, err := a.cl.state(ctx, a.room)
	if err != nil {
		return "", a.report("state", err)
	}
	var ids []string
	for _, m := range st.Members {
		if m.Status == "active" && m.AgentID != a.id {
			ids = append(ids, m.AgentID)
		}
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[a.rng.IntN(len(ids))], nil
}

// lost reports an owner operation that failed. stale_lease and
// turn_mismatch mean the lease was lost: expected after it expired, a
// violation before (nobody may take over a live holder's valid lease).
func (a *agent) lost(op string, g grant, err error) error {
	code := stick.ErrorCode(err)
	if code != stick.CodeStaleLease && code != stick.CodeTurnMismatch {
		return a.report(op, err)
	}
	// The store keeps the expiry in whole milliseconds, so a taker-over
	// judges by the truncated value.
	when := lostExpired
	if time.Now().Before(g.expires.Truncate(time.Millisecond)) {
		when = lostEarly
	}
	return a.say(msgLost, op, strconv.FormatInt(g.lease.TurnID, 10), string(code), when)
}
