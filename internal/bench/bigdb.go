package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/stickhq/stick/stick"
)

// bigDatabase fills a database with rooms and events, then times the
// calls an agent makes on a busy machine: joining a room, reading its
// state, and reading a page of its log from an arbitrary point.
func bigDatabase(ctx context.Context, e *env) ([]Result, error) {
	rooms, events := 10_000, 1_000_000
	if e.o.Quick {
		rooms, events = 500, 20_000
	}
	a, err := joinAs(ctx, e.db, e.repo, "bench")
	if err != nil {
		return nil, err
	}
	defer a.close()
	if e.o.Log != nil {
		e.o.Log("big-database: filling %d rooms and %d events", rooms, events)
	}
	paths, ids, err := fillRooms(ctx, a, filepath.Dir(e.data), rooms)
	if err != nil {
		return nil, err
	}
	last, err := fillEvents(ctx, a, ids, events)
	if err != nil {
		return nil, err
	}
	n := e.size(2000, 200)
	rnd := rand.New(rand.NewPCG(1, 2))
	ops := []struct {
		name string
		op   func(i int) error
	}{
		{"big-db join", func(i int) error {
			_, err := a.svc.JoinPath(ctx, a.me, stick.JoinRequest{Path: paths[i]})
			return err
		}},
		{"big-db state", func(i int) error {
			_, err := a.svc.RoomState(ctx, ids[i])
			return err
		}},
		{"big-db events", func(i int) error {
			p, err := a.svc.RoomEvents(ctx, ids[i], rnd.Int64N(last), 100)
			if err == nil && len(p.Events) == 0 && p.HasMore {
				err = fmt.Errorf("an empty page that has more")
			}
			return err
		}},
	}
	var out []Result
	for _, o := range ops {
		r := Result{Scenario: o.name, Unit: "calls"}
		samples := make([]time.Duration, 0, n)
		m := startMeter()
		for range n {
			i := rnd.IntN(len(ids))
			t0 := time.Now()
			if err := o.op(i); err != nil {
				return nil, fmt.Errorf("%s: %w", o.name, err)
			}
			samples = append(samples, time.Since(t0))
		}
		m.stop(&r, n)
		r.latencies(samples)
		r.Met = r.P99 <= 2*time.Millisecond
		out = append(out, r)
	}
	out[0].note("%d rooms, %d events", rooms, events)
	return out, nil
}

// fillRooms creates n workspaces below dir and joins each, returning
// their paths and room ids.
func fillRooms(ctx context.Context, a *agent, dir string, n int) (paths, ids []string, err error) {
	for i := range n {
		p := filepath.Join(dir, "rooms", fmt.Sprintf("w%05d", i))
		if err := os.MkdirAll(filepath.Join(p, ".git"), 0o755); err != nil {
			return nil, nil, err
		}
		j, err := a.svc.JoinPath(ctx, a.me, stick.JoinRequest{Path: p})
		if err != nil {
			return nil, nil, err
		}
		paths, ids = append(paths, p), append(ids, j.RoomID)
	}
	return paths, ids, nil
}

// fillEvents appends n notes from a's member, spread at random over the
// rooms, in large transactions through the store, and returns the last
// event sequence.
func fillEvents(ctx context.Context, a *agent, ids []string, n int) (int64, error) {
	rnd := rand.New(rand.NewPCG(3, 4))
	const batch = 50_000
	var last int64
	now := time.Now()
	for done := 0; done < n; done += batch {
		err := a.st.Update(ctx, func(tx stick.Tx) error {
			for i := done; i < min(done+batch, n); i++ {
				ev, err := tx.AppendEvent(stick.Event{
					RoomID: ids[rnd.IntN(len(ids))], Type: stick.EventNote, From: a.me.AgentID, MessageType: stick.DefaultNoteType,
					Text: fmt.Sprintf("note %d: the parser fails on nested brackets; see parse.go:%d", i, i%400), CreatedAt: now,
				})
				if err != nil {
					return err
				}
				last = ev.Seq
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	// Timings see the steady state of a store after a bulk fill.
	return last, a.settle(ctx)
}
