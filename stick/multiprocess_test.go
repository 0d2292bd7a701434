package stick_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

func registerWorkers() {
	testproc.Register("contender", contender)
	testproc.Register("holder", holder)
	testproc.Register("pingpong", pingpong)
}

// worker is a child process's view of the shared database: the real clock,
// and this process as the member's liveness.
type worker struct {
	svc  *stick.Service
	me   stick.Caller
	room string
	st   *store.Store
}

// joinWorker opens the database in dir and joins the room of repo as id.
// On failure it prints "error <step> <err>" for the parent to report.
func joinWorker(dir, repo, id string) (*worker, bool) {
	fail := func(step string, err error) (*worker, bool) {
		fmt.Println("error", step, err)
		return nil, false
	}
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		return fail("open", err)
	}
	self, err := procid.Self()
	if err != nil {
		st.Close()
		return fail("self", err)
	}
	svc, err := stick.New(st)
	if err != nil {
		st.Close()
		return fail("service", err)
	}
	me := stick.Caller{AgentID: id, Kind: stick.KindProcess, Process: self}
	j, err := svc.JoinPath(context.Background(), me, stick.JoinRequest{Path: repo})
	if err != nil {
		st.Close()
		return fail("join", err)
	}
	return &worker{svc: svc, me: me, room: j.RoomID, st: st}, true
}

// contender: args dbdir repo agent cycles checkfile. It claims the stick
// cycles times; while holding, it creates checkfile with O_EXCL (an
// independent mutual-exclusion check), then removes it and releases. It
// prints "grant <turn>" per grant, "violation ..." on overlap, "done" at the end.
func contender(args []string) int {
	id, file := args[2], args[4]
	cycles, _ := strconv.Atoi(args[3])
	wk, ok := joinWorker(args[0], args[1], id)
	if !ok {
		return 1
	}
	defer wk.st.Close()
	svc, me, ctx := wk.svc, wk.me, context.Background()
	fmt.Println("joined")
	for got := 0; got < cycles; {
		w, err := svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: wk.room})
		if err != nil {
			fmt.Println("error wait", err)
			return 1
		}
		if w.Status != stick.YourTurn {
			continue
		}
		f, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Println("violation", w.TurnID, err)
			return 1
		}
		fmt.Fprintf(f, "%s %d\n", id, w.TurnID)
		f.Close()
		fmt.Println("grant", w.TurnID)
		got++
		if err := os.Remove(file); err != nil {
			fmt.Println("violation remove", err)
			return 1
		}
		if _, err := svc.Release(ctx, me, w.Lease(), stick.Handoff{Status: fmt.Sprintf("%s turn %d", id, w.TurnID), NextAction: "carry on"}); err != nil {
			fmt.Println("error release", err)
			return 1
		}
	}
	if err := svc.Leave(ctx, me, wk.room); err != nil {
		fmt.Println("error leave", err)
		return 1
	}
	fmt.Println("done")
	return 0
}

// holder: args dbdir repo agent. Claims the stick, prints "holding <turn>", and blocks.
func holder(args []string) int {
	wk, ok := joinWorker(args[0], args[1], args[2])
	if !ok {
		return 1
	}
	defer wk.st.Close()
	svc, me, ctx := wk.svc, wk.me, context.Background()
	w, err := svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: wk.room})
	if err != nil || w.Status != stick.YourTurn {
		fmt.Println("error", w.Status, err)
		return 1
	}
	fmt.Println("holding", w.TurnID)
	select {}
}

// pingpong: args dbdir repo agent. Joins, prints "joined", then forever
// waits for its turn and releases at once.
func pingpong(args []string) int {
	wk, ok := joinWorker(args[0], args[1], args[2])
	if !ok {
		return 1
	}
	defer wk.st.Close()
	svc, me, ctx := wk.svc, wk.me, context.Background()
	fmt.Println("joined")
	for {
		w, err := svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: wk.room})
		if err != nil {
			fmt.Println("error", err)
			return 1
		}
		if w.Status == stick.YourTurn {
			if _, err := svc.Release(ctx, me, w.Lease(), stick.Handoff{Status: "pong", NextAction: "ping"}); err != nil {
				fmt.Println("error", err)
				return 1
			}
		}
	}
}

func expectLine(t testing.TB, p *testproc.Proc, prefix string) string {
	t.Helper()
	line, err := p.ReadLine(30 * time.Second)
	if err != nil || !strings.HasPrefix(line, prefix) {
		t.Fatalf("want %q from child, got %q (%v); stderr: %s", prefix, line, err, p.Stderr())
	}
	return line
}

func TestMultiProcessContention(t *testing.T) {
	const procs, cycles = 8, 40
	dir := t.TempDir()
	repo := mkRepo(t)
	check := filepath.Join(t.TempDir(), "critical-section")
	children := make([]*testproc.Proc, procs)
	for i := range children {
		children[i] = testproc.Start(t, "contender", dir, repo, fmt.Sprintf("worker-%d", i), strconv.Itoa(cycles), check)
	}
	var mu sync.Mutex
	var grants []int64
	var wg sync.WaitGroup
	for _, p := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				line, err := p.ReadLine(2 * time.Minute)
				if err != nil {
					t.Errorf("child %d: %v; stderr: %s", p.PID(), err, p.Stderr())
					return
				}
				f := strings.Fields(line)
				switch f[0] {
				case "joined":
				case "grant":
					n, _ := strconv.ParseInt(f[1], 10, 64)
					mu.Lock()
					grants = append(grants, n)
					mu.Unlock()
				case "done":
					return
				default:
					t.Errorf("child %d: %s", p.PID(), line)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, p := range children {
		if code, err := p.Wait(); code != 0 {
			t.Fatalf("child exit %d %v: %s", code, err, p.Stderr())
		}
	}
	if t.Failed() {
		return
	}
	// Every turn granted exactly once, 1..N with no gap.
	sort.Slice(grants, func(i, j int) bool { return grants[i] < grants[j] })
	if len(grants) != procs*cycles {
		t.Fatalf("%d grants, want %d", len(grants), procs*cycles)
	}
	for i, g := range grants {
		if g != int64(i+1) {
			t.Fatalf("grant %d has turn %d: turns must be granted once each, in order", i, g)
		}
	}
	// The log agrees: one claim event per turn, strictly increasing.
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := newService(t, st)
	rooms, err := svc.ListRooms(context.Background(), repo)
	if err != nil || len(rooms) != 1 {
		t.Fatalf("rooms: %+v %v", rooms, err)
	}
	var last int64
	claims := 0
	for after := int64(0); ; {
		page, err := svc.RoomEvents(context.Background(), rooms[0].RoomID, after, stick.MaxEventLimit)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page.Events {
			if ev.Type == stick.EventClaim || ev.Type == stick.EventTakeover {
				if ev.TurnID != last+1 {
					t.Fatalf("grant event for turn %d after turn %d", ev.TurnID, last)
				}
				last = ev.TurnID
				claims++
			}
		}
		after = page.Cursor
		if !page.HasMore {
			break
		}
	}
	if claims != procs*cycles {
		t.Fatalf("%d grant events, want %d", claims, procs*cycles)
	}
	if _, err := os.Stat(check); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("critical-section file left behind: %v", err)
	}
}

// A holder killed with SIGKILL shows as owner_gone to a waiter in another
// process at once, without waiting for any TTL.
func TestKilledHolderYieldsOwnerGone(t *testing.T) {
	dir := t.TempDir()
	repo := mkRepo(t)
	p := testproc.Start(t, "holder", dir, repo, "doomed")
	expectLine(t, p, "holding")
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := newService(t, st)
	me := stick.Caller{AgentID: "survivor", Kind: stick.KindProcess}
	ctx := context.Background()
	j, err := svc.JoinPath(ctx, me, stick.JoinRequest{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	if j.Room.State != stick.StateOwned || j.Room.Owner != "doomed" {
		t.Fatalf("before the kill: %+v", j.Room)
	}
	done := make(chan stick.WaitResult, 1)
	go func() {
		w, err := svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: j.RoomID})
		if err != nil {
			t.Error(err)
		}
		done <- w
	}()
	time.Sleep(50 * time.Millisecond) // let the waiter block; correctness does not depend on it
	killed := time.Now()
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-done:
		if w.Status != stick.TakeoverAvailable || w.Reason != string(stick.ReasonOwnerGone) {
			t.Fatalf("want takeover_available/owner_gone, got %+v", w)
		}
		t.Logf("owner_gone seen %v after SIGKILL", time.Since(killed))
	case <-time.After(10 * time.Second):
		t.Fatal("waiter did not see the holder die")
	}
	if s, _ := svc.RoomState(ctx, j.RoomID); s.State != stick.StateOwnerGone {
		t.Fatalf("state: %+v", s)
	}
	if _, err := svc.Takeover(ctx, me, j.RoomID, 1, "holder process was killed"); err != nil {
		t.Fatal(err)
	}
}

// A release in this process wakes a waiter in another process, which claims.
func TestCrossProcessHandoff(t *testing.T) {
	dir := t.TempDir()
	repo := mkRepo(t)
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := newService(t, st)
	me := stick.Caller{AgentID: "parent", Kind: stick.KindProcess}
	ctx := context.Background()
	j, err := svc.JoinPath(ctx, me, stick.JoinRequest{Path: repo})
	if err != nil {
		t.Fatal(err)
	}
	p := testproc.Start(t, "pingpong", dir, repo, "child")
	expectLine(t, p, "joined")
	for i := 0; i < 20; i++ {
		w, err := svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: j.RoomID})
		if err != nil {
			t.Fatal(err)
		}
		if w.Status != stick.YourTurn {
			t.Fatalf("round %d: %+v", i, w)
		}
		if i > 0 && (w.FromAgentID != "child" || w.Handoff.Status != "pong") {
			t.Fatalf("round %d: the child's handoff must arrive: %+v", i, w)
		}
		if _, err := svc.Release(ctx, me, w.Lease(), stick.Handoff{Status: "ping", NextAction: "pong"}); err != nil {
			t.Fatal(err)
		}
	}
}
