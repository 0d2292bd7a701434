package browser_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// The members the "turns" process takes turns as.
var (
	liveA = member{"codex:live-a", stick.KindHarness, "Codex CLI"}
	liveB = member{"claude-code:live-b", stick.KindHarness, "Claude Code"}
)

// takeTurns is the "turns" process: two members of the room named
// args[0] take args[1] turns in alternation through the library, over the
// database of $TALKING_STICK_DATA_DIR, each holding the stick args[2]
// milliseconds. It prints "ready ROOM_ID" once both joined, waits for a
// line on stdin, then prints for every release
//
//	release N SEQ BEFORE_NS AFTER_NS
//
// with the wall-clock times (Unix nanoseconds) just before the release
// was called and just after it returned (committed), and "done" at the
// end.
func takeTurns(args []string) int {
	if err := turns(args); err != nil {
		fmt.Fprintln(os.Stderr, "turns:", err)
		return 1
	}
	return 0
}

func turns(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("want ROOM TURNS HOLD_MS, got %q", args)
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return err
	}
	hold, err := strconv.Atoi(args[2])
	if err != nil {
		return err
	}
	st, err := store.OpenDir(os.Getenv("TALKING_STICK_DATA_DIR"), store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := stick.New(st)
	if err != nil {
		return err
	}
	defer svc.Shutdown()
	ctx := context.Background()
	var room string
	for _, m := range []member{liveA, liveB} {
		res, err := svc.JoinPath(ctx, m.caller(), stick.JoinRequest{Name: args[0]})
		if err != nil {
			return err
		}
		room = res.RoomID
	}
	fmt.Println("ready", room)
	if !bufio.NewScanner(os.Stdin).Scan() {
		return fmt.Errorf("stdin ended before the go")
	}
	wait := 10 * time.Second
	for i := 1; i <= n; i++ {
		m := []member{liveA, liveB}[(i-1)%2]
		w, err := svc.WaitForTurn(ctx, m.caller(), stick.WaitRequest{RoomID: room, MaxWait: &wait})
		if err != nil {
			return err
		}
		if w.Status != stick.YourTurn {
			return fmt.Errorf("turn %d: %s did not get the stick: %+v", i, m.id, w)
		}
		time.Sleep(time.Duration(hold) * time.Millisecond)
		h := stick.Handoff{Status: fmt.Sprintf("release %d: finished step %d of the migration", i, i),
			NextAction: fmt.Sprintf("take step %d", i+1),
			Artifacts:  []stick.Artifact{{Path: "store/migrate.go", Lines: []int{10 * i, 10*i + 9}, Role: stick.RoleReview}}}
		before := time.Now()
		res, err := svc.Release(ctx, m.caller(), w.Lease(), h)
		after := time.Now()
		if err != nil {
			return err
		}
		fmt.Println("release", i, res.EventSeq, before.UnixNano(), after.UnixNano())
	}
	fmt.Println("done")
	return nil
}
