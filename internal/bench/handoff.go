package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

func init() {
	reexec.Register("bench-turns", roleMain("bench-turns", turns))
}

// turns: args data repo id last. The process joins, says "ready", waits
// for "go", then takes turns: each time it gets the stick it times the
// handoff it received (if stamped) and releases with a stamped handoff.
// The first turn after last ends its loop; it says "done" with its
// samples and exits when its input closes.
func turns(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("want data repo id last, got %q", args)
	}
	last, err := strconv.ParseInt(args[3], 10, 64)
	if err != nil {
		return err
	}
	ctx := context.Background()
	a, in, err := joinReady(ctx, args[0], args[1], args[2])
	if err != nil {
		return err
	}
	defer a.close()
	var samples []time.Duration
	for {
		w, err := a.wait(ctx, 30*time.Second)
		if err != nil {
			return err
		}
		switch w.Status {
		case stick.NotYet:
			continue
		case stick.YourTurn:
		default:
			return fmt.Errorf("wait_for_turn: %s (%s) at turn %d", w.Status, w.Reason, w.TurnID)
		}
		if d, ok := since(w.Handoff); ok && w.TurnID <= last {
			samples = append(samples, d)
		}
		if w.TurnID > last {
			if _, err := a.svc.Release(ctx, a.me, w.Lease(), stick.Handoff{Status: "done", NextAction: "stop"}); err != nil {
				return err
			}
			break
		}
		if _, err := a.svc.Release(ctx, a.me, w.Lease(), stamped("take the next turn")); err != nil {
			return err
		}
	}
	fmt.Println("done", formatDurations(samples))
	for in.Scan() {
	}
	return nil
}

// handoffLibrary: two processes hand the stick to each other.
func handoffLibrary(ctx context.Context, e *env) ([]Result, error) {
	r, err := roundRobin(ctx, e, "handoff-library", 2, e.size(2000, 200))
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
	r, err := roundRobin(ctx, e, "handoff-crowd", procs, e.size(1000, 100))
	if err != nil {
		return nil, err
	}
	r.Met = r.Met && r.P99 <= 10*time.Millisecond
	return []Result{r}, nil
}

// roundRobin runs procs turn-taking processes for last turns and checks
// the room's log: every turn granted exactly once, in order, each to the
// member the previous release reserved it for. Met is set when the log
// is right; the caller adds its latency targets.
func roundRobin(ctx context.Context, e *env, name string, procs, last int) (Result, error) {
	r := Result{Scenario: name, Unit: "handoffs"}
	kids := make([]*child, 0, procs)
	defer func() { killAll(kids) }()
	for i := range procs {
		c, err := start(ctx, nil, "bench-turns", e.data, e.repo, fmt.Sprintf("p%02d", i), strconv.Itoa(last))
		if err != nil {
			return r, err
		}
		kids = append(kids, c)
		// One at a time, so the first start creates the database alone.
		if _, err := c.expect(ctx, "ready", time.Minute); err != nil {
			return r, err
		}
	}
	m := startMeter(pidsOf(kids)...)
	for _, c := range kids {
		if err := c.Send("go"); err != nil {
			return r, err
		}
	}
	var samples []time.Duration
	for _, c := range kids {
		rest, err := c.expect(ctx, "done", 10*time.Minute)
		if err != nil {
			return r, err
		}
		s, err := parseDurations(rest)
		if err != nil {
			return r, err
		}
		samples = append(samples, s...)
	}
	m.stop(&r, len(samples))
	for _, c := range kids {
		if err := c.finish(10 * time.Second); err != nil {
			return r, err
		}
	}
	r.latencies(samples)
	problems, err := checkRotation(ctx, e.data, int64(last+procs))
	if err != nil {
		return r, err
	}
	r.Met = true
	r.Problems = append(r.Problems, problems...)
	if len(problems) == 0 {
		r.note("%d turns, each granted once, in order, to the reserved member", last+procs)
	}
	return r, nil
}

// checkRotation reads the only room's log and returns what is wrong with
// it: turns 1..turns each claimed once and in order, each claim by the
// member the previous release reserved the stick for.
func checkRotation(ctx context.Context, data string, turns int64) ([]string, error) {
	evs, err := roomLog(ctx, data)
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

// roomLog returns every event of the only open room in data.
func roomLog(ctx context.Context, data string) ([]stick.Event, error) {
	st, err := store.OpenDir(data, store.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		return nil, err
	}
	rooms, err := svc.ListRooms(ctx, "")
	if err != nil {
		return nil, err
	}
	if len(rooms) != 1 {
		return nil, fmt.Errorf("%d rooms in %s, want 1", len(rooms), data)
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
