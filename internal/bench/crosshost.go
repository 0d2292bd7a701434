package bench

import (
	"context"
	"fmt"
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

// onOtherHost is this process as a process of otherHost (asOtherHost).
func onOtherHost() (stick.Process, error) {
	self, err := procid.Self()
	if err != nil {
		return stick.Process{}, err
	}
	return asOtherHost(self), nil
}

// asOtherHost is p as a process of otherHost: its real pid and start
// time, so that it is exact.
func asOtherHost(p procid.Identity) stick.Process {
	return stick.Process{HostID: otherHost, BootID: "boot-" + otherHost, PID: p.PID, StartedAt: p.StartedAt}
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
	return holdUntilKilled(ctx, a)
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
	if err := killHolders(ctx, e, me, &r, holderKills{
		role: "bench-xhold", n: e.size(20, 5), settle: crossHostSettle, why: "holder on another host killed by the benchmark",
		check: func(c *child, name string) error {
			holder, err := procid.Of(c.PID())
			if err != nil {
				return err
			}
			if got := live.Check(asOtherHost(holder)); got != procid.Alive {
				return fmt.Errorf("%s holds the stick and its mark, but the watcher judges it %v, not alive", name, got)
			}
			return nil
		},
	}); err != nil {
		return nil, err
	}
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
