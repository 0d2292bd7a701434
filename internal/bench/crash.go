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
	return holdUntilKilled(ctx, a)
}

// holdUntilKilled is the life of a holder that has joined: it says
// "joined", waits until it holds the stick, says "holding" and then holds
// it until it is killed (or its input closes).
func holdUntilKilled(ctx context.Context, a *agent) error {
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
	me, err := joinAs(ctx, e.db, e.repo, "watcher")
	if err != nil {
		return nil, err
	}
	defer me.close()
	// Let the wait block first: a kill that lands before it would be
	// seen by its first look at the room, which is not a wake-up.
	if err := killHolders(ctx, e, me, &r, holderKills{
		role: "bench-hold", n: e.size(30, 5), settle: 20 * time.Millisecond, why: "holder killed by the benchmark",
	}); err != nil {
		return nil, err
	}
	r.Met = r.P50 <= 100*time.Millisecond
	return []Result{r}, nil
}

// holderKills says how killHolders runs: the role of the holders, how
// many, how long the watcher's wait is given before each kill, the
// reason of the watcher's takeovers, and a check of each holder once it
// holds the stick (nil: none).
type holderKills struct {
	role   string
	n      int
	settle time.Duration
	why    string
	check  func(c *child, name string) error
}

// killHolders starts k.n holders of k.role one after the other; each
// joins, gets the stick (from me, who hands on the turn it took over
// last) and is SIGKILLed while me waits in WaitForTurn, measured from the
// kill until the wait returns takeover_available with owner_gone; me then
// takes over. r gets the latencies and the processor time.
func killHolders(ctx context.Context, e *env, me *agent, r *Result, k holderKills) error {
	var held *stick.WaitResult // me's turn, between kills
	var samples []time.Duration
	var kids []*child
	defer func() { killAll(kids) }()
	m := startMeter()
	for i := range k.n {
		name := fmt.Sprintf("h%03d", i)
		c, err := e.start(ctx, nil, k.role, e.data, e.repo, name)
		if err != nil {
			return err
		}
		kids = append(kids, c)
		if _, err := c.expect(ctx, "joined", time.Minute); err != nil {
			return err
		}
		if held != nil {
			if _, err := me.svc.Release(ctx, me.me, held.Lease(), stick.Handoff{Status: "recovered", NextAction: "hold until killed"}); err != nil {
				return err
			}
		}
		if _, err := c.expect(ctx, "holding", time.Minute); err != nil {
			return err
		}
		if k.check != nil {
			if err := k.check(c, name); err != nil {
				return err
			}
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
		time.Sleep(k.settle)
		t0 := time.Now()
		if err := c.Signal(syscall.SIGKILL); err != nil {
			return err
		}
		var res waited
		select {
		case res = <-got:
		case <-time.After(time.Minute):
			return fmt.Errorf("no owner_gone within a minute of the kill of %s", name)
		case <-ctx.Done():
			return ctx.Err()
		}
		if res.err != nil {
			return res.err
		}
		if res.w.Status != stick.TakeoverAvailable || res.w.Reason != string(stick.ReasonOwnerGone) {
			return fmt.Errorf("after the kill of %s: %w", name, errUnexpected(res.w))
		}
		samples = append(samples, res.at.Sub(t0))
		_ = c.Close()
		m.addReaped(c.State())
		t, err := me.svc.Takeover(ctx, me.me, me.room, res.w.TurnID, k.why)
		if err != nil {
			return err
		}
		held = &stick.WaitResult{RoomID: t.RoomID, TurnID: t.TurnID, LeaseID: t.LeaseID}
	}
	m.stop(r, len(samples))
	r.latencies(samples)
	r.Throughput = 0
	return nil
}
