package bench

import (
	"context"
	"fmt"
	"strconv"

	"github.com/stickhq/stick/stick"
)

// hubNotes: 16 plain HTTP clients, each in its own process with a token
// of its own, post notes to one room of one hub as fast as it answers;
// every note must be in the room's log once.
func hubNotes(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "hub-notes", Unit: "notes"}
	clients := 16
	if e.o.Quick {
		clients = 4
	}
	total := e.size(20000, 400)
	per := (total + clients - 1) / clients
	names := make([]string, clients)
	for i := range names {
		names[i] = fmt.Sprintf("team-%02d", i)
	}
	h, secrets, err := e.startHubWithTokens(ctx, names...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	hubCPU := cpuOf([]int{h.PID()})
	samples, err := together(ctx, &r, clients, func(i int) (*child, error) {
		return e.start(ctx, []string{tokenEnv + "=" + secrets[i]}, "bench-rest-notes", h.url, hubRoom, fmt.Sprintf("c%02d", i), strconv.Itoa(per))
	}, h.PID())
	if err != nil {
		return nil, err
	}
	hubCPU = cpuOf([]int{h.PID()}) - hubCPU
	if err := h.stop(); err != nil {
		return nil, err
	}
	r.latencies(samples)
	r.Met = r.Throughput >= 3000
	evs, err := roomLog(ctx, e.db)
	if err != nil {
		return nil, err
	}
	notes := 0
	for _, ev := range evs {
		if ev.Type == stick.EventNote {
			notes++
		}
	}
	if want := clients * per; notes != want {
		r.problem("%d notes in the room's log, want %d", notes, want)
	} else {
		r.note("%d clients, %d notes, each in the room's log once", clients, notes)
	}
	if len(samples) > 0 {
		r.note("the hub's processor time per note %.0f µs", float64(hubCPU.Microseconds())/float64(len(samples)))
	}
	return []Result{r}, nil
}
