package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register("bench-rest-turns", roleMain("bench-rest-turns", restTurns))
}

// hubRoom is the named room the hub's scenarios meet in.
const hubRoom = "stickbench"

// restTurns: args url room id last, the token in tokenEnv. The process is
// a plain HTTP client of the hub at url, named id: it joins the room,
// says "ready", waits for "go", then takes turns through the hub's API,
// long-polling for each (see takeTurns); it says "done" with its samples
// and exits when its input closes.
func restTurns(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("want url room id last, got %q", args)
	}
	last, err := strconv.ParseInt(args[3], 10, 64)
	if err != nil {
		return err
	}
	ctx := context.Background()
	c, err := restClientFromEnv(args[0], args[2])
	if err != nil {
		return err
	}
	room, err := c.join(ctx, args[1])
	if err != nil {
		return err
	}
	in, err := readyGo()
	if err != nil {
		return err
	}
	samples, err := takeTurns(last,
		func() (stick.WaitResult, error) { return c.wait(ctx, room, 30*time.Second) },
		func(l stick.Lease, h stick.Handoff) error { return c.release(ctx, l, h) })
	if err != nil {
		return err
	}
	fmt.Println("done", formatDurations(samples))
	for in.Scan() {
	}
	return nil
}

// handoffREST: two plain HTTP clients, each in its own process with a
// token of its own, hand the stick to each other through one hub,
// long-polling for their turns.
func handoffREST(ctx context.Context, e *env) ([]Result, error) {
	secrets, err := makeTokens(ctx, e.data, "team-a", "team-b")
	if err != nil {
		return nil, err
	}
	h, err := e.startHub(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	n := 0
	r, err := roundRobin(ctx, e, rotation{name: "handoff-rest", procs: 2, last: e.size(2000, 200), also: []int{h.PID()},
		launch: func(ctx context.Context, id string, last int) (*child, error) {
			c, err := start(ctx, []string{tokenEnv + "=" + secrets[n%len(secrets)]}, "bench-rest-turns", h.url, hubRoom, id, strconv.Itoa(last))
			n++
			return c, err
		}})
	if err != nil {
		return nil, err
	}
	if err := h.stop(); err != nil {
		return nil, err
	}
	r.Met = r.Met && r.P50 <= 2*time.Millisecond
	return []Result{r}, nil
}
