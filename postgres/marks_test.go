package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/testclock"
	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/postgres"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

func init() {
	testproc.Register("marked-holder", markedHolder)
	testproc.Register("marked", marked)
}

// onHostB is this process as a process of another host, "host-b": its
// real pid and start time, so that it is exact, on a host no judge of
// this test shares.
func onHostB() (stick.Process, error) {
	self, err := procid.Self()
	if err != nil {
		return stick.Process{}, err
	}
	return stick.Process{HostID: "host-b", BootID: "boot-b", PID: self.PID, StartedAt: self.StartedAt}, nil
}

// markedHolder: args url room agent. As a process of host-b, it marks
// itself, joins the named room, takes the stick, prints "holding <turn>"
// and blocks until killed.
func markedHolder(args []string) int {
	ctx := context.Background()
	fail := func(step string, err error) int {
		fmt.Println("error", step, err)
		return 1
	}
	me, err := onHostB()
	if err != nil {
		return fail("self", err)
	}
	st, err := postgres.Open(ctx, args[0], postgres.Options{})
	if err != nil {
		return fail("open", err)
	}
	if _, err := st.Mark(ctx, me); err != nil {
		return fail("mark", err)
	}
	svc, err := stick.New(st)
	if err != nil {
		return fail("service", err)
	}
	c := stick.Caller{AgentID: args[2], Kind: stick.KindProcess, Process: me}
	j, err := svc.JoinPath(ctx, c, stick.JoinRequest{Name: args[1]})
	if err != nil {
		return fail("join", err)
	}
	w, err := svc.WaitForTurn(ctx, c, stick.WaitRequest{RoomID: j.RoomID})
	if err != nil || w.Status != stick.YourTurn {
		return fail("wait", fmt.Errorf("%s %v", w.Status, err))
	}
	fmt.Println("holding", w.TurnID)
	select {}
}

// marked: args url. As a process of host-b, it marks itself, prints
// "marked", and on a line "release" on stdin releases the mark and
// prints "released"; it exits at the end of stdin.
func marked(args []string) int {
	ctx := context.Background()
	me, err := onHostB()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	st, err := postgres.Open(ctx, args[0], postgres.Options{})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	defer st.Close()
	release, err := st.Mark(ctx, me)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("marked")
	buf := make([]byte, 64)
	for {
		n, err := os.Stdin.Read(buf)
		if strings.Contains(string(buf[:n]), "release") {
			release()
			fmt.Println("released")
		}
		if err != nil {
			return 0
		}
	}
}

// readLine fails t unless p prints want (a prefix) next.
func readLine(t *testing.T, p *testproc.Proc, want string) string {
	t.Helper()
	line, err := p.ReadLine(30 * time.Second)
	if err != nil || !strings.HasPrefix(line, want) {
		t.Fatalf("child: %q, %v; want %q", line, err, want)
	}
	return line
}

// childOnHostB is the process a child started as p stands for: host-b,
// its pid and start time.
func childOnHostB(t *testing.T, p *testproc.Proc) stick.Process {
	t.Helper()
	id, err := procid.Of(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	return stick.Process{HostID: "host-b", BootID: "boot-b", PID: id.PID, StartedAt: id.StartedAt}
}

// A member whose process on another host holds a mark is alive to a
// judge on this host; when that process is killed, a waiter of this host
// learns that the holder is gone at once, by proof, without its clock
// moving towards the end of the holder's lease.
func TestCrashAcrossHosts(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	st := openStore(t, u)
	clk := testclock.New(time.Now())
	svc, err := stick.New(st, stick.WithClock(clk), stick.WithLiveness(st.Liveness(nil)))
	if err != nil {
		t.Fatal(err)
	}
	child := testproc.Start(t, "marked-holder", u, "team", "bob")
	readLine(t, child, "holding")

	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	ana := stick.Caller{AgentID: "ana", Kind: stick.KindProcess, Process: self}
	j, err := svc.JoinPath(ctx, ana, stick.JoinRequest{Name: "team"})
	if err != nil {
		t.Fatal(err)
	}
	bob := childOnHostB(t, child)
	if got := st.Liveness(nil).Check(bob); got != procid.Alive {
		t.Fatalf("a process of host-b holding a mark: %v; want alive", got)
	}

	type result struct {
		w   stick.WaitResult
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	maxWait := 10 * time.Minute
	go func() {
		w, err := svc.WaitForTurn(ctx, ana, stick.WaitRequest{RoomID: j.RoomID, MaxWait: &maxWait})
		done <- result{w, err, time.Now()}
	}()
	select {
	case r := <-done:
		t.Fatalf("the wait returned while bob's process runs: %+v, %v", r.w, r.err)
	case <-time.After(300 * time.Millisecond):
	}

	start := clk.Now()
	killed := time.Now()
	if err := child.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.w.Status != stick.TakeoverAvailable || r.w.Reason != string(stick.ReasonOwnerGone) {
			t.Fatalf("the wait after bob's process was killed: %+v, %v; want takeover_available (owner_gone)", r.w, r.err)
		}
		t.Logf("owner_gone seen %v after the kill", r.at.Sub(killed))
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not learn within 10 s that bob's process was killed")
	}
	if !clk.Now().Equal(start) {
		t.Fatal("the clock moved")
	}
	if got := st.Liveness(nil).Check(bob); got != procid.Gone {
		t.Fatalf("a process of host-b whose mark was let go: %v; want gone", got)
	}
}

// A process is alive while any of its marks is held: a mark released (a
// clean exit of one process standing for it) leaves it alive while
// another is held, and once all are released it has none and is judged
// by the fallback, Unknown for another host (its leases decide), never
// Gone. A process never marked is Unknown too; one of this host is
// judged by procid.
func TestMarksReleased(t *testing.T) {
	u := pgtest.URL(t)
	st := openStore(t, u)
	live := st.Liveness(nil)
	one := testproc.Start(t, "marked", u)
	readLine(t, one, "marked")
	p := childOnHostB(t, one)
	if got := live.Check(p); got != procid.Alive {
		t.Fatalf("one mark held: %v; want alive", got)
	}
	// A second mark of the same process, by this process's store.
	release, err := st.Mark(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(one.Stdin(), "release")
	readLine(t, one, "released")
	if got := live.Check(p); got != procid.Alive {
		t.Fatalf("one mark released, another held: %v; want alive", got)
	}
	one.Stdin().Close()
	if _, err := one.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := live.Check(p); got != procid.Alive {
		t.Fatalf("the releasing process exited, another mark held: %v; want alive", got)
	}
	release()
	release()
	if got := live.Check(p); got != procid.Unknown {
		t.Fatalf("every mark released: %v; want unknown", got)
	}
	if n := marksOf(t, u, p); n != 0 {
		t.Fatalf("rows of a process whose marks were released: %d", n)
	}
	other := stick.Process{HostID: "host-c", BootID: "boot-c", PID: 42, StartedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if got := live.CheckWithin(other, time.Minute); got != procid.Unknown {
		t.Fatalf("a process of another host without marks: %v; want unknown", got)
	}
	if ch, ok := live.Watch(context.Background(), other); ok {
		t.Fatalf("a watch of a process without marks: %v; want none (the waiter polls)", ch)
	}
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	if got := live.Check(self); got != procid.Alive {
		t.Fatalf("this process, unmarked: %v; want alive (procid)", got)
	}
	if _, err := st.Mark(context.Background(), stick.Process{HostID: "host-b"}); stick.ErrorCode(err) != stick.CodeInvalidArgument {
		t.Fatalf("a mark without a pid: %v; want invalid_argument", err)
	}
}

// When the listening connection that holds a process's mark is ended by
// the server, the process is gone to every judge (and a watch of it
// fires) until the store connects again and takes the mark again: then
// it is alive again.
func TestMarkTakenAgain(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	holder := openStore(t, u)
	judge := openStore(t, u)
	live := judge.Liveness(nil)
	p := stick.Process{HostID: "host-b", BootID: "boot-b", PID: 4242, StartedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if _, err := holder.Mark(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := live.Check(p); got != procid.Alive {
		t.Fatalf("marked: %v; want alive", got)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fired, ok := live.WatchWithin(wctx, p, time.Hour)
	if !ok {
		t.Fatal("no watch of a marked process")
	}
	// The judge's own listening connection is the one it opened first.
	listeners := backends(t, u, postgres.ListenerAppName, "")
	if len(listeners) != 2 {
		t.Fatalf("listening connections: %v; want two", listeners)
	}
	terminate(t, u, holderListener(t, u))
	closes(t, fired, "the watch of a process whose mark was let go")

	deadline := time.Now().Add(30 * time.Second)
	for live.Check(p) != procid.Alive {
		if time.Now().After(deadline) {
			t.Fatal("the mark was not taken again within 30 s of the connection's end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if holder.ListenerListens() < 2 {
		t.Fatal("alive again without a new listening connection")
	}
}

// holderListener returns the pid of the listening connection that holds
// a mark.
func holderListener(t *testing.T, u string) int32 {
	t.Helper()
	var pid int32
	query(t, u, func(conn *pgx.Conn) error {
		return conn.QueryRow(context.Background(), `SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted AND l.mode = 'ExclusiveLock' AND a.application_name = $1`,
			postgres.ListenerAppName).Scan(&pid)
	})
	return pid
}

// marksOf counts the rows of p in process_marks.
func marksOf(t *testing.T, u string, p stick.Process) int {
	t.Helper()
	var n int
	query(t, u, func(conn *pgx.Conn) error {
		return conn.QueryRow(context.Background(), "SELECT count(*) FROM process_marks WHERE host_id = $1 AND pid = $2",
			p.HostID, p.PID).Scan(&n)
	})
	return n
}

func query(t *testing.T, u string, fn func(*pgx.Conn) error) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := fn(conn); err != nil {
		t.Fatal(err)
	}
}
