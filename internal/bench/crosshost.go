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
	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register("bench-xhold", roleMain("bench-xhold", holdOnOtherHost))
}

// otherHost is the host the holders of cross-host-crash stand for: no
// host's real id, so that the watcher judges them by their marks alone,
// as it judges the processes of another machine.
const otherHost = "stickbench-other-host"

// onOtherHost is this process as a process of otherHost: its real pid
// and start time, so that it is exact.
func onOtherHost() (stick.Process, error) {
	self, err := procid.Self()
	if err != nil {
		return stick.Process{}, err
	}
	return stick.Process{HostID: otherHost, BootID: "boot-" + otherHost, PID: self.PID, StartedAt: self.StartedAt}, nil
}

// holdOnOtherHost: args data repo id. On PostgreSQL only, as a process
// of otherHost, the process marks itself in the database, joins, says
// "joined", waits until it holds the stick, says "holding" and then
// holds it until it is killed (or its input closes).
func holdOnOtherHost(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("want data repo id, got %q", args)
	}
	ctx := context.Background()
	me, err := onOtherHost()
	if err != nil {
		return err
	}
	db := rundb.Inherited(args[0])
	if !db.Postgres() {
		return fmt.Errorf("a holder on another host needs PostgreSQL: %s", db)
	}
	st, svc, err := openService(ctx, db)
	if err != nil {
		return err
	}
	defer closeService(st, svc)
	pg, ok := st.(*postgres.Store)
	if !ok {
		return fmt.Errorf("%s is not a PostgreSQL store", db)
	}
	if _, err := pg.Mark(ctx, me); err != nil {
		return fmt.Errorf("mark %s: %w", me, err)
	}
	a := &agent{db: db, st: st, svc: svc, me: stick.Caller{AgentID: args[2], Kind: stick.KindProcess, Process: me}}
	j, err := svc.JoinPath(ctx, a.me, stick.JoinRequest{Path: args[1]})
	if err != nil {
		return err
	}
	a.room = j.RoomID
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

// crossHostSettle is how long the watcher's wait is given to look at the
// room and start watching the holder's mark before the kill: a kill that
// lands before would be seen by that first look, which is not a wake-up.
// On PostgreSQL the look and the watch take a few round trips.
const crossHostSettle = 100 * time.Millisecond

// crossHostCrash: a holder standing for a process of another host (it
// marks that process in the database, Store.Mark) is SIGKILLed while this
// process, whose Service judges members by their marks (the database's
// Liveness), waits in WaitForTurn; measured from the kill until the wait
// returns takeover_available with owner_gone, which takes the server
// seeing the holder's connection end and letting its mark go, and this
// process's watch of that mark waking. This process then takes over and
// hands the stick to the next holder. PostgreSQL only.
func crossHostCrash(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "cross-host-crash", Unit: "kills"}
	n := e.size(20, 5)
	self, err := procid.Self()
	if err != nil {
		return nil, err
	}
	st, err := e.db.Open(ctx)
	if err != nil {
		return nil, err
	}
	live, ok := storeurl.Liveness(st, nil)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("%s holds no marks: the scenario needs PostgreSQL", e.db)
	}
	svc, err := stick.New(st, stick.WithLiveness(live))
	if err != nil {
		st.Close()
		return nil, err
	}
	me := &agent{db: e.db, st: st, svc: svc, me: stick.Caller{AgentID: "watcher", Kind: stick.KindProcess, Process: self}}
	defer me.close()
	j, err := svc.JoinPath(ctx, me.me, stick.JoinRequest{Path: e.repo})
	if err != nil {
		return nil, err
	}
	me.room = j.RoomID
	var held *stick.WaitResult // this process's turn, between kills
	var samples []time.Duration
	var kids []*child
	defer func() { killAll(kids) }()
	m := startMeter()
	for i := range n {
		name := fmt.Sprintf("h%03d", i)
		c, err := e.start(ctx, nil, "bench-xhold", e.data, e.repo, name)
		if err != nil {
			return nil, err
		}
		kids = append(kids, c)
		if _, err := c.expect(ctx, "joined", time.Minute); err != nil {
			return nil, err
		}
		if held != nil {
			if _, err := svc.Release(ctx, me.me, held.Lease(), stick.Handoff{Status: "recovered", NextAction: "hold until killed"}); err != nil {
				return nil, err
			}
		}
		if _, err := c.expect(ctx, "holding", time.Minute); err != nil {
			return nil, err
		}
		holder, err := procid.Of(c.PID())
		if err != nil {
			return nil, err
		}
		other := stick.Process{HostID: otherHost, BootID: "boot-" + otherHost, PID: holder.PID, StartedAt: holder.StartedAt}
		if got := live.Check(other); got != procid.Alive {
			return nil, fmt.Errorf("%s holds the stick and its mark, but the watcher judges it %v, not alive", name, got)
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
		time.Sleep(crossHostSettle)
		t0 := time.Now()
		if err := c.Signal(syscall.SIGKILL); err != nil {
			return nil, err
		}
		var res waited
		select {
		case res = <-got:
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("no owner_gone within a minute of the kill of %s", name)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if res.err != nil {
			return nil, res.err
		}
		if res.w.Status != stick.TakeoverAvailable || res.w.Reason != string(stick.ReasonOwnerGone) {
			return nil, fmt.Errorf("after the kill of %s: %w", name, errUnexpected(res.w))
		}
		samples = append(samples, res.at.Sub(t0))
		_ = c.Close()
		m.addReaped(c.State())
		t, err := svc.Takeover(ctx, me.me, me.room, res.w.TurnID, "holder on another host killed by the benchmark")
		if err != nil {
			return nil, err
		}
		held = &stick.WaitResult{RoomID: t.RoomID, TurnID: t.TurnID, LeaseID: t.LeaseID}
	}
	m.stop(&r, len(samples))
	r.latencies(samples)
	r.Throughput = 0
	r.Met = r.P50 <= 200*time.Millisecond
	r.note("each holder judged alive by its mark while it held the stick")
	return []Result{r}, nil
}

// onPostgresOnly is the skip of a scenario that measures what only
// PostgreSQL's marks tell.
func onPostgresOnly(pg bool) string {
	if pg {
		return ""
	}
	return "it measures a crash on another host, which only a PostgreSQL store's marks tell (run it with --database)"
}
