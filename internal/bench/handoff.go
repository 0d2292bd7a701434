package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register("bench-turns", roleMain("bench-turns", turns))
}

// turns: args data repo id last. The process joins, says "ready", waits
// for "go", then takes turns through the library (see takeTurns); it says
// "done" with its samples and exits when its input closes.
func turns(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("want data repo id last, got %q", args)
	}
	last, err := strconv.ParseInt(args[3], 10, 64)
	if err != nil {
		return err
	}
	ctx := context.Background()
	a, in, err := joinReady(ctx, rundb.Inherited(args[0]), args[1], args[2])
	if err != nil {
		return err
	}
	defer a.close()
	samples, err := takeTurns(last,
		func() (stick.WaitResult, error) { return a.wait(ctx, 30*time.Second) },
		func(l stick.Lease, h stick.Handoff) error {
			_, err := a.svc.Release(ctx, a.me, l, h)
			return err
		})
	if err != nil {
		return err
	}
	reportDone(in, samples)
	return nil
}

// takeTurns waits for the stick and releases it, again and again: each
// time it gets the stick it times the handoff it received (if stamped)
// and releases with a stamped handoff. The first turn after last ends
// its loop, with a final handoff; it returns the samples.
func takeTurns(last int64, wait func() (stick.WaitResult, error), release func(stick.Lease, stick.Handoff) error) ([]time.Duration, error) {
	var samples []time.Duration
	for {
		w, err := wait()
		if err != nil {
			return nil, err
		}
		switch w.Status {
		case stick.NotYet:
			continue
		case stick.YourTurn:
		default:
			return nil, fmt.Errorf("wait_for_turn: %s (%s) at turn %d", w.Status, w.Reason, w.TurnID)
		}
		if d, ok := since(w.Handoff); ok && w.TurnID <= last {
			samples = append(samples, d)
		}
		if w.TurnID > last {
			return samples, release(w.Lease(), stick.Handoff{Status: "done", NextAction: "stop"})
		}
		if err := release(w.Lease(), stamped("take the next turn")); err != nil {
			return nil, err
		}
	}
}

// handoffLibrary: two processes hand the stick to each other.
func handoffLibrary(ctx context.Context, e *env) ([]Result, error) {
	r, err := roundRobin(ctx, e, rotation{name: "handoff-library", procs: 2, last: e.size(2000, 200), launch: e.libraryTurns})
	if err != nil {
		return nil, err
	}
	r.Met = r.P50 <= time.Millisecond && r.P99 <= 5*time.Millisecond
	return []Result{r}, nil
}

// handoffCrowd: sixteen processes in one room, round robin.
func handoffCrowd(ctx context.Context, e *env) ([]Result, error) {
	procs := 16
	if e.o.Quick {
		procs = 4
	}
	r, err := roundRobin(ctx, e, rotation{name: "handoff-crowd", procs: procs, last: e.size(1000, 100), launch: e.libraryTurns})
	if err != nil {
		return nil, err
	}
	r.Met = r.Met && r.P99 <= 10*time.Millisecond
	return []Result{r}, nil
}

// libraryTurns starts a process that takes turns through the library as
// member id (the bench-turns role).
func (e *env) libraryTurns(ctx context.Context, id string, last int) (*child, error) {
	return e.start(ctx, nil, "bench-turns", e.data, e.repo, id, strconv.Itoa(last))
}

// rotation is a round robin of processes taking turns in one room.
type rotation struct {
	name        string
	procs, last int
	// launch starts the process of member id, which takes turns until
	// the first after last (see takeTurns) and speaks as bench-turns.
	launch func(ctx context.Context, id string, last int) (*child, error)
	// also are other processes of the scenario whose processor time
	// counts (a hub).
	also []int
}

// roundRobin runs ro.procs turn-taking processes for ro.last turns and
// checks the room's log: every turn granted exactly once, in order, each
// to the member the previous release reserved it for. Met is set when
// the log is right; the caller adds its latency targets.
func roundRobin(ctx context.Context, e *env, ro rotation) (Result, error) {
	r := Result{Scenario: ro.name, Unit: "handoffs"}
	samples, err := together(ctx, &r, ro.procs, func(i int) (*child, error) {
		return ro.launch(ctx, fmt.Sprintf("p%02d", i), ro.last)
	}, ro.also...)
	if err != nil {
		return r, err
	}
	r.latencies(samples)
	problems, err := checkRotation(ctx, e.db, int64(ro.last+ro.procs))
	if err != nil {
		return r, err
	}
	r.Met = true
	r.Problems = append(r.Problems, problems...)
	if len(problems) == 0 {
		r.note("%d turns, each granted once, in order, to the reserved member", ro.last+ro.procs)
	}
	return r, nil
}

// together starts procs children with launch, one at a time (each says
// "ready" once set up, so the first start creates the database alone),
// says "go" to all of them, and collects the samples each reports on its
// line "done"; then it closes their input and waits for them to exit. r
// gets the throughput (every sample over the wall time from "go" to the
// last "done") and the processor time of this process, the children and
// also.
func together(ctx context.Context, r *Result, procs int, launch func(i int) (*child, error), also ...int) ([]time.Duration, error) {
	kids := make([]*child, 0, procs)
	defer func() { killAll(kids) }()
	for i := range procs {
		c, err := launch(i)
		if err != nil {
			return nil, err
		}
		kids = append(kids, c)
		if _, err := c.expect(ctx, "ready", time.Minute); err != nil {
			return nil, err
		}
	}
	m := startMeter(append(pidsOf(kids), also...)...)
	for _, c := range kids {
		if err := c.Send("go"); err != nil {
			return nil, err
		}
	}
	var samples []time.Duration
	for _, c := range kids {
		rest, err := c.expect(ctx, "done", 10*time.Minute)
		if err != nil {
			return nil, err
		}
		s, err := parseDurations(rest)
		if err != nil {
			return nil, err
		}
		samples = append(samples, s...)
	}
	m.stop(r, len(samples))
	for _, c := range kids {
		if err := c.finish(10 * time.Second); err != nil {
			return nil, err
		}
	}
	return samples, nil
}

// checkRotation reads the only room's log and returns what is wrong with
// it: turns 1..turns each claimed once and in order, each claim by the
// member the previous release reserved the stick for.
func checkRotation(ctx context.Context, db rundb.DB, turns int64) ([]string, error) {
	evs, err := roomLog(ctx, db)
	if err != nil {
		return nil, err
	}
	var problems []string
	next, reserved := int64(1), ""
	for _, ev := range evs {
		switch ev.Type {
		case stick.EventClaim:
			if ev.TurnID != next {
				problems = append(problems, fmt.Sprintf("claim of turn %d where turn %d was due", ev.TurnID, next))
			}
			if reserved != "" && ev.From != reserved {
				problems = append(problems, fmt.Sprintf("turn %d claimed by %s, reserved for %s", ev.TurnID, ev.From, reserved))
			}
			next = ev.TurnID + 1
		case stick.EventRelease, stick.EventPass:
			reserved = ev.To
		case stick.EventTakeover:
			problems = append(problems, fmt.Sprintf("takeover at turn %d", ev.TurnID))
		}
		if len(problems) > 10 {
			break
		}
	}
	if next-1 != turns {
		problems = append(problems, fmt.Sprintf("%d turns granted, want %d", next-1, turns))
	}
	return problems, nil
}

// roomLog returns every event of the only open room in db.
func roomLog(ctx context.Context, db rundb.DB) ([]stick.Event, error) {
	st, svc, err := openService(ctx, db)
	if err != nil {
		return nil, err
	}
	defer closeService(st, svc)
	rooms, err := svc.ListRooms(ctx, "")
	if err != nil {
		return nil, err
	}
	if len(rooms) != 1 {
		return nil, fmt.Errorf("%d rooms in the %s, want 1", len(rooms), db)
	}
	var out []stick.Event
	for after := int64(0); ; {
		p, err := svc.RoomEvents(ctx, rooms[0].RoomID, after, stick.MaxEventLimit)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Events...)
		if !p.HasMore {
			return out, nil
		}
		after = p.Cursor
	}
}
