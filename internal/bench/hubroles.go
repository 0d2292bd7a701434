package bench

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/stick"
)

func init() {
	reexec.Register("bench-rest-turns", roleMain("bench-rest-turns", restTurns))
	reexec.Register("bench-rest-notes", roleMain("bench-rest-notes", restNotes))
}

// restMember is a client role of the hub's scenarios, set up: a plain
// HTTP client of the hub, joined to the room, that the parent told to
// go.
type restMember struct {
	c    *restClient
	room string
	// n is the role's count argument.
	n int
	// in is the rest of the role's input.
	in *bufio.Scanner
}

// joinHub sets up a client role: args url room id n, the token in
// tokenEnv. It joins the room at the hub at url as client id, says
// "ready" and returns once the parent says "go".
func joinHub(ctx context.Context, args []string) (*restMember, error) {
	if len(args) != 4 {
		return nil, fmt.Errorf("want url room id n, got %q", args)
	}
	n, err := strconv.Atoi(args[3])
	if err != nil {
		return nil, err
	}
	c, err := restClientFromEnv(args[0], args[2])
	if err != nil {
		return nil, err
	}
	room, err := c.join(ctx, args[1])
	if err != nil {
		return nil, err
	}
	in, err := readyGo()
	if err != nil {
		return nil, err
	}
	return &restMember{c: c, room: room, n: n, in: in}, nil
}

// reportDone says "done" with the samples and waits for the input to end.
func reportDone(in *bufio.Scanner, samples []time.Duration) {
	fmt.Println("done", formatDurations(samples))
	for in.Scan() {
	}
}

// restTurns: a client role (see joinHub) that takes turns through the
// hub's API, long-polling for each, until the first after turn n (see
// takeTurns).
func restTurns(args []string) error {
	ctx := context.Background()
	m, err := joinHub(ctx, args)
	if err != nil {
		return err
	}
	samples, err := takeTurns(int64(m.n),
		func() (stick.WaitResult, error) { return m.c.wait(ctx, m.room, 30*time.Second) },
		func(l stick.Lease, h stick.Handoff) error { return m.c.release(ctx, l, h) })
	if err != nil {
		return err
	}
	reportDone(m.in, samples)
	return nil
}

// restNotes: a client role (see joinHub) that posts n notes one after
// another and reports the time each post took.
func restNotes(args []string) error {
	ctx := context.Background()
	m, err := joinHub(ctx, args)
	if err != nil {
		return err
	}
	samples := make([]time.Duration, 0, m.n)
	for i := range m.n {
		t0 := time.Now()
		if err := m.c.note(ctx, m.room, fmt.Sprintf("note %d of %s: the flaky test is parser_test.go:88, its clock is not injected", i, m.c.name)); err != nil {
			return err
		}
		samples = append(samples, time.Since(t0))
	}
	reportDone(m.in, samples)
	return nil
}
