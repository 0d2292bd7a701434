package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register("bench-hold", roleMain("bench-hold", hold))
}

// hold: args data repo id. The process joins, says "joined", waits until
// it holds the stick, says "holding" and then holds it until it is
// killed (or its input closes).
func hold(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("want data repo id, got %q", args)
	}
	ctx := context.Background()
	a, err := joinAs(ctx, rundb.Inherited(args[0]), args[1], args[2])
	if err != nil {
		return err
	}
	defer a.close()
	fmt.Println("joined")
	for {
		w, err := a.wait(ctx, 30*time.Second)
		if err != nil {
			return err
		}
		if w.Status == stick.YourTurn {
			break
		}
		if w.Status != stick.NotYet {
			return errUnexpected(w)
		}
	}
	fmt.Println("holding")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
	}
	return nil
}

// crashDetection: a holder is SIGKILLed while this process waits in
// WaitForTurn; measured until the wait returns takeover_available with
// owner_gone. This process then takes over and hands the stick to the
// next holder.
func crashDetection(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "crash-detection", Unit: "kills"}
	n := e.size(30, 5)
	me, err := joinAs(ctx, e.db, e.repo, "watcher")
	if err != nil {
		return nil, err
	}
	defer me.close()
	var held *stick.WaitResult // this process's turn, between kills
	var samples []time.Duration
	var kids []*child
	defer func() { killAll(kids) }()
	m := startMeter()
	for i := range n {
		c, err := e.start(ctx, nil, "bench-hold", e.data, e.repo, fmt.Sprintf("h%03d", i))
		if err != nil {
			return nil, err
		}
		kids = append(kids, c)
		if _, err := c.expect(ctx, "joined", time.Minute); err != nil {
			return nil, err
		}
		if held != nil {
			if _, err := me.svc.Release(ctx, me.me, held.Lease(), stick.Handoff{Status: "recovered", NextAction: "hold until killed"}); err != nil {
				return nil, err
			}
		}
		if _, err := c.expect(ctx, "holding", time.Minute); err != nil {
			return nil, err
		}
		type waited struct {
			w   stick.WaitResult
			err error
			at  time.Time
		}
		got := make(chan waited, 1)
		go func() {
			for {
				w, err := me.wait(ctx, 10*time.Second)
				if err != nil || w.Status != stick.NotYet {
					got <- waited{w, err, time.Now()}
					return
				}
			}
		}()
		// Let the wait block first: a kill that lands before it would be
		// seen by its first look at the room, which is not a wake-up.
		time.Sleep(20 * time.Millisecond)
		t0 := time.Now()
		if err := c.Signal(syscall.SIGKILL); err != nil {
			return nil, err
		}
		res := <-got
		if res.err != nil {
			return nil, res.err
		}
		if res.w.Status != stick.TakeoverAvailable || res.w.Reason != string(stick.ReasonOwnerGone) {
			return nil, fmt.Errorf("after the kill: %w", errUnexpected(res.w))
		}
		samples = append(samples, res.at.Sub(t0))
		_ = c.Close()
		m.addReaped(c.State())
		t, err := me.svc.Takeover(ctx, me.me, me.room, res.w.TurnID, "holder killed by the benchmark")
		if err != nil {
			return nil, err
		}
		held = &stick.WaitResult{RoomID: t.RoomID, TurnID: t.TurnID, LeaseID: t.LeaseID}
	}
	m.stop(&r, len(samples))
	r.latencies(samples)
	r.Throughput = 0
	r.Met = r.P50 <= 100*time.Millisecond
	return []Result{r}, nil
}
