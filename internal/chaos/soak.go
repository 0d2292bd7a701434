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
		if d.o.Hub {
			d.checkOrphans()
		}
		st, ok := d.poll(ctx)
		if !ok {
			return ctx.Err()
		}
		now := time.Now()
		d.observe(&w, now, st)
		switch {
		case now.Before(end):
			if !now.Before(nextKill) {
				if d.hubKillDue() {
					d.killHubAndRestart(ctx, &w, st)
				} else if c, aim := d.pickVictim(st); c != nil {
					d.killAndRestart(ctx, &w, st, c, aim, d.pickKind(c))
				}
				nextKill = time.Now().Add(d.killGap())
			}
		case !finalDone:
			// The last kill hits the holder as soon as there is one, so
			// the recovery after it is a real one.
			if c := d.holder(st); c != nil {
				kind := d.pickKind(c)
				d.logf("final kill: %s of %s, the holder of turn %d", kind, st.Owner, st.TurnID)
				d.killAndRestart(ctx, &w, st, c, "holder", kind)
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
			d.logf("%v: turn %d, %d kills (%d proxies, %d of the hub), %d takeovers, longest recovery %v",
				now.Sub(began).Round(time.Second), st.TurnID, d.rep.Kills, d.rep.ProxyKills, d.rep.HubKills,
				d.stats.takeovers, d.rep.MaxRecovery.Round(time.Millisecond))
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

// What a kill hits: an agent (over a hub, the harness behind a proxy),
// an agent's proxy, or the hub.
const (
	killAgent = "agent"
	killProxy = "proxy"
	killHub   = "hub"
)

// hubKillDue reports whether the next kill hits the hub: over a hub,
// once it has run for a random time between minHubKillGap and
// maxHubKillGap since it last started.
func (d *driver) hubKillDue() bool {
	return d.o.Hub && !time.Now().Before(d.hub.killAt)
}

// pickKind chooses whether a kill aimed at c hits c or, over a hub, its
// proxy.
func (d *driver) pickKind(c *child) string {
	if !d.o.Hub || c.proxy.IsZero() || d.rng.Float64() >= proxyKillChance {
		return killAgent
	}
	return killProxy
}

// pickVictim chooses whom to kill: the holder half the time, the reserved
// recipient some of the time, otherwise any agent whose member id is
// known (over a hub, one that said it joined). It returns the victim and
// what it was aimed at, or nil when no agent may be killed now.
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
	i := d.rng.IntN(len(d.slots))
	for n := range d.slots {
		c := d.slots[(i+n)%len(d.slots)]
		name, ok := c.name()
		if !ok {
			continue
		}
		switch name {
		case st.Owner:
			return c, "holder"
		case st.ReservedFor:
			return c, "recipient"
		}
		return c, "waiter"
	}
	return nil, ""
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
		if c == nil {
			continue
		}
		if name, ok := c.name(); ok && name == id && !c.exited() {
			return c
		}
	}
	return nil
}

// killAndRestart kills c (kind killAgent) or its proxy (killProxy),
// starts its successor in the same slot, and starts timing the room's
// recovery.
func (d *driver) killAndRestart(ctx context.Context, w *watch, st stick.RoomStatus, c *child, aim, kind string) {
	since := time.Now()
	name, _ := c.name()
	kill := d.kill
	if kind == killProxy {
		kill = d.killProxy
	}
	if err := kill(c); err != nil {
		d.fail("%v", err)
		return
	}
	d.rep.Kills++
	if kind == killProxy {
		d.rep.ProxyKills++
	}
	switch aim {
	case "holder":
		d.rep.HolderKills++
	case "recipient":
		d.rep.RecipientKills++
	}
	w.pending, w.since, w.victim, w.aim, w.before, w.turn = true, since, name, aim, st, st.TurnID
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
	stats, v := checkHistory(historyInput{events: d.events, sec: d.sec, grace: d.grace()})
	d.stats = stats
	d.history++
	for _, s := range v {
		d.fail("%s", s)
	}
}
