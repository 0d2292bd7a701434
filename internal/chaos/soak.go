package chaos

import (
	"context"
	"time"

	"github.com/stickhq/stick/stick"
)

// watch follows the room between polls: when it last made progress, and
// the kill whose recovery is being timed.
type watch struct {
	lastProgress time.Time
	lastTurn     int64
	// pending is set from a kill until some live process holds the stick
	// again; since is when the kill was sent, victim whom it hit and aim
	// what it was aimed at, before the room just before it (turn its
	// turn), final whether it was the last kill.
	pending bool
	since   time.Time
	victim  string
	aim     string
	before  stick.RoomStatus
	turn    int64
	final   bool
}

// soak kills and restarts agents for the soak's duration, then kills the
// holder a last time, waits for the room to recover and lets it settle,
// checking the room, the check file and the log all along. It returns
// early when a violation is found, and an error only when ctx ends.
func (d *driver) soak(ctx context.Context) error {
	began := time.Now()
	end := began.Add(d.o.Duration)
	nextKill := began.Add(d.killGap())
	nextSection, nextHistory, nextProgress := began.Add(sectionEvery), began.Add(historyEvery), began.Add(progressEvery)
	w := watch{lastProgress: began}
	var finalDone bool
	var settled time.Time
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for !d.failed() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		d.checkExits()
		st, ok := d.poll(ctx)
		if !ok {
			return ctx.Err()
		}
		now := time.Now()
		d.observe(&w, now, st)
		switch {
		case now.Before(end):
			if !now.Before(nextKill) {
				c, aim := d.pickVictim(st)
				d.killAndRestart(ctx, &w, st, c, aim)
				nextKill = time.Now().Add(d.killGap())
			}
		case !finalDone:
			// The last kill hits the holder as soon as there is one, so
			// the recovery after it is a real one.
			if c := d.holder(st); c != nil {
				d.logf("final kill: %s, the holder of turn %d", c.id, st.TurnID)
				d.killAndRestart(ctx, &w, st, c, "holder")
				w.final, finalDone = true, true
			}
		case w.pending:
		case settled.IsZero():
			settled = now.Add(settle)
		case now.After(settled):
			return nil
		}
		if now.After(nextSection) {
			if err := d.readSection(); err != nil {
				d.fail("%v", err)
			}
			d.sectionChecks++
			nextSection = now.Add(sectionEvery)
		}
		if now.After(nextHistory) {
			d.checkHistoryNow(ctx)
			nextHistory = now.Add(historyEvery)
		}
		if now.After(nextProgress) {
			d.logf("%v: turn %d, %d kills, %d takeovers, longest recovery %v",
				now.Sub(began).Round(time.Second), st.TurnID, d.rep.Kills, d.stats.takeovers, d.rep.MaxRecovery.Round(time.Millisecond))
			nextProgress = now.Add(progressEvery)
		}
	}
	return nil
}

// poll reads the room's state; a failure is a violation.
func (d *driver) poll(ctx context.Context) (stick.RoomStatus, bool) {
	st, err := d.svc.RoomState(ctx, d.room)
	if err != nil {
		if ctx.Err() == nil {
			d.checkCode(err)
			d.fail("the driver could not read the room: %v", err)
		}
		return st, false
	}
	return st, true
}

// observe checks that the room keeps recovering: some live process holds
// the stick (or a turn was granted since the last poll) within the
// takeover window of the last time one did, and of every kill.
func (d *driver) observe(w *watch, now time.Time, st stick.RoomStatus) {
	held := st.State == stick.StateOwned
	if held || st.TurnID != w.lastTurn {
		w.lastProgress, w.lastTurn = now, st.TurnID
	} else if gap := now.Sub(w.lastProgress); gap > d.window {
		d.fail("the room went %v without a live holder, longer than the takeover window %v (%s)",
			gap.Round(time.Millisecond), d.window, describeRoom(st))
	}
	if !w.pending {
		return
	}
	if (held && st.Owner != w.victim) || st.TurnID > w.turn {
		rec := now.Sub(w.since)
		w.pending = false
		d.rep.Recoveries++
		d.rep.MaxRecovery = max(d.rep.MaxRecovery, rec)
		if rec > slowRecovery {
			d.logf("slow recovery: %v after killing %s (%s) when the room had %s; now %s",
				rec.Round(time.Millisecond), w.victim, w.aim, describeRoom(w.before), describeRoom(st))
		}
		if w.final {
			d.rep.FinalRecovery = rec
			d.logf("recovered from the final kill in %v", rec.Round(time.Millisecond))
		}
	} else if gap := now.Sub(w.since); gap > d.window {
		d.fail("no live process held the stick within the takeover window %v after %s was killed (%s)",
			d.window, w.victim, describeRoom(st))
	}
}

// pickVictim chooses whom to kill: the holder half the time, the reserved
// recipient some of the time, otherwise any agent. It returns the victim
// and what it was aimed at.
func (d *driver) pickVictim(st stick.RoomStatus) (*child, string) {
	switch r := d.rng.Float64(); {
	case r < 0.5:
		if c := d.holder(st); c != nil {
			return c, "holder"
		}
	case r < 0.65:
		if st.StoredState == stick.StateReserved {
			if c := d.byID(st.ReservedFor); c != nil {
				return c, "recipient"
			}
		}
	}
	c := d.slots[d.rng.IntN(len(d.slots))]
	switch c.id {
	case st.Owner:
		return c, "holder"
	case st.ReservedFor:
		return c, "recipient"
	}
	return c, "waiter"
}

// holder returns the live agent holding the stick, nil when none does.
func (d *driver) holder(st stick.RoomStatus) *child {
	if st.State != stick.StateOwned {
		return nil
	}
	return d.byID(st.Owner)
}

// byID returns the current, running agent with id, or nil.
func (d *driver) byID(id string) *child {
	for _, c := range d.slots {
		if c != nil && c.id == id && !c.exited() {
			return c
		}
	}
	return nil
}

// killAndRestart kills c, starts its successor in the same slot, and
// starts timing the room's recovery.
func (d *driver) killAndRestart(ctx context.Context, w *watch, st stick.RoomStatus, c *child, aim string) {
	since := time.Now()
	if err := d.kill(c); err != nil {
		d.fail("%v", err)
		return
	}
	d.rep.Kills++
	switch aim {
	case "holder":
		d.rep.HolderKills++
	case "recipient":
		d.rep.RecipientKills++
	}
	w.pending, w.since, w.victim, w.aim, w.before, w.turn = true, since, c.id, aim, st, st.TurnID
	if err := d.start(ctx, c.slot); err != nil {
		d.fail("restart slot %d after killing %s: %v", c.slot, c.id, err)
		return
	}
	d.rep.Restarts++
}

// killGap is a random pause between two kills.
func (d *driver) killGap() time.Duration {
	return minKillGap + time.Duration(d.rng.Int64N(int64(maxKillGap-minKillGap)))
}

// checkHistoryNow checks the event log so far. The events are read before
// the check file, so every kill line written before a takeover in them is
// read too.
func (d *driver) checkHistoryNow(ctx context.Context) {
	if err := d.fetchEvents(ctx); err != nil {
		if ctx.Err() == nil {
			d.fail("the driver could not read the event log: %v", err)
		}
		return
	}
	if err := d.readSection(); err != nil {
		d.fail("%v", err)
	}
	stats, v := checkHistory(historyInput{events: d.events, sec: d.sec})
	d.stats = stats
	d.history++
	for _, s := range v {
		d.fail("%s", s)
	}
}
