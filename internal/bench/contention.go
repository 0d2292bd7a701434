package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/filelock"
	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/rundb"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register("bench-contend", roleMain("bench-contend", contend))
}

// contend: args data repo id seconds checkfile. After "go" it takes every
// turn it can for the given time. While it holds the stick it holds an
// exclusive lock on checkfile, taken without waiting: finding it locked
// means two holders at once (a lock costs two system calls where creating
// and removing a file would cost the file system's journal, which is not
// stick's to measure). After each release it tries to heartbeat with the lease it just
// gave up, which fencing must refuse. It reports "done" with its counts.
func contend(args []string) error {
	if len(args) != 5 {
		return fmt.Errorf("want data repo id seconds checkfile, got %q", args)
	}
	secs, err := strconv.ParseFloat(args[3], 64)
	if err != nil {
		return err
	}
	check, err := filelock.Open(args[4])
	if err != nil {
		return err
	}
	defer check.Close()
	ctx := context.Background()
	a, in, err := joinReady(ctx, rundb.Inherited(args[0]), args[1], args[2])
	if err != nil {
		return err
	}
	defer a.close()
	grants, violations := 0, 0
	codes := map[stick.Code]int{}
	seen := func(err error) {
		var se *stick.Error
		if errors.As(err, &se) {
			codes[se.Code]++
		} else {
			codes["other"]++
		}
	}
	h := stick.Handoff{Status: "contended turn done", NextAction: "take the next turn"}
	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	for {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		w, err := a.wait(ctx, min(left, time.Second))
		if err != nil {
			seen(err)
			continue
		}
		if w.Status != stick.YourTurn {
			continue
		}
		grants++
		// The lock is held for the whole turn, across a write of the
		// holder's own (a heartbeat), so an overlapping holder finds it.
		mine, err := check.TryLock()
		switch {
		case err != nil:
			return err
		case !mine:
			violations++
		}
		if _, err := a.svc.Heartbeat(ctx, a.me, w.Lease()); err != nil {
			seen(err)
		}
		if mine {
			check.Unlock()
		}
		if _, err := a.svc.Release(ctx, a.me, w.Lease(), h); err != nil {
			seen(err)
			continue
		}
		if _, err := a.svc.Heartbeat(ctx, a.me, w.Lease()); err == nil {
			violations++
		} else if c := stick.ErrorCode(err); c != stick.CodeStaleLease && c != stick.CodeTurnMismatch {
			seen(err)
		}
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(codes)) {
		parts = append(parts, fmt.Sprintf("%s:%d", c, codes[c]))
	}
	fmt.Printf("done %d %d %s\n", grants, violations, strings.Join(parts, ","))
	for in.Scan() {
	}
	return nil
}

// contention: processes race for one room for a fixed time.
func contention(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "contention", Unit: "grants"}
	procs, span := 8, e.span(10*time.Second, time.Second)
	if e.o.Quick {
		procs = 4
	}
	check := filepath.Join(filepath.Dir(e.data), "critical-section")
	kids := make([]*child, 0, procs)
	defer func() { killAll(kids) }()
	for i := range procs {
		c, err := e.start(ctx, nil, "bench-contend", e.data, e.repo, fmt.Sprintf("c%d", i),
			strconv.FormatFloat(span.Seconds(), 'f', 3, 64), check)
		if err != nil {
			return nil, err
		}
		kids = append(kids, c)
		if _, err := c.expect(ctx, "ready", time.Minute); err != nil {
			return nil, err
		}
	}
	m := startMeter(pidsOf(kids)...)
	for _, c := range kids {
		if err := c.Send("go"); err != nil {
			return nil, err
		}
	}
	grants, violations := 0, 0
	codes := map[string]int{}
	for _, c := range kids {
		rest, err := c.expect(ctx, "done", span+time.Minute)
		if err != nil {
			return nil, err
		}
		var g, v int
		var errs string
		if n, _ := fmt.Sscanf(rest, "%d %d %s", &g, &v, &errs); n < 2 {
			return nil, fmt.Errorf("bad report %q", rest)
		}
		grants, violations = grants+g, violations+v
		for _, kv := range strings.Split(errs, ",") {
			if code, n, ok := strings.Cut(kv, ":"); ok {
				k, _ := strconv.Atoi(n)
				codes[code] += k
			}
		}
	}
	m.stop(&r, grants)
	for _, c := range kids {
		if err := c.finish(10 * time.Second); err != nil {
			return nil, err
		}
	}
	r.Count = grants
	problems, err := checkRotation(ctx, e.db, int64(grants))
	if err != nil {
		return nil, err
	}
	busy := codes[string(stick.CodeDBBusy)]
	r.Met = r.Throughput >= 1000
	r.note("%d processes, %d fencing violations, %d db_busy", procs, violations, busy)
	if violations > 0 {
		r.problem("%d fencing violations", violations)
	}
	if len(codes) > 0 {
		// Every turn is taken and given back by its holder in time:
		// no caller should see any error at all.
		r.problem("errors seen: %v", codes)
	}
	r.Problems = append(r.Problems, problems...)
	return []Result{r}, nil
}

// errUnexpected describes a wait result a scenario did not expect.
func errUnexpected(w stick.WaitResult) error {
	return fmt.Errorf("wait_for_turn: %s (%s) at turn %d", w.Status, w.Reason, w.TurnID)
}
