package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/stick"
)

// handoffMCP: two 'stick mcp' servers, each driven by a client of this
// process, hand the stick to each other.
func handoffMCP(ctx context.Context, e *env) ([]Result, error) {
	var sessions []*mcpSession
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	var room string
	for _, name := range []string{"claude-code", "codex"} {
		s, err := e.dial(ctx, name)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, s)
		j, err := s.call(ctx, "join_path", map[string]any{"context_path": e.repo})
		if err != nil {
			return nil, err
		}
		room = j.RoomID
	}
	r, err := mcpRotation(ctx, e, "handoff-mcp", sessions, room, int64(e.size(1000, 100)))
	if err != nil {
		return nil, err
	}
	r.Met = r.Met && r.P50 <= 3*time.Millisecond && r.P99 <= 10*time.Millisecond
	return []Result{r}, nil
}

// mcpRotation has the clients of sessions, members of room, take turns
// in it until the first turn after last, each timing the handoffs it
// receives, and checks the room's log as roundRobin does. The processor
// time counts this process, the sessions' servers and also (a hub). Met
// is set when the log is right; the caller adds its latency targets.
func mcpRotation(ctx context.Context, e *env, name string, sessions []*mcpSession, room string, last int64, also ...int) (Result, error) {
	r := Result{Scenario: name, Unit: "handoffs"}
	var pids []int
	for _, s := range sessions {
		pids = append(pids, s.cmd.Process.Pid)
	}
	m := startMeter(append(pids, also...)...)
	var mu sync.Mutex
	var samples []time.Duration
	errs := make(chan error, len(sessions))
	for _, s := range sessions {
		go func() { errs <- mcpTurns(ctx, s, room, last, &mu, &samples) }()
	}
	for range sessions {
		if err := <-errs; err != nil {
			return r, err
		}
	}
	m.stop(&r, len(samples))
	r.latencies(samples)
	problems, err := checkRotation(ctx, e.db, last+int64(len(sessions)))
	if err != nil {
		return r, err
	}
	r.Met = true
	r.Problems = append(r.Problems, problems...)
	if len(problems) == 0 {
		r.note("%d turns, each granted once, in order, to the reserved member", last+int64(len(sessions)))
	}
	return r, nil
}

// mcpTurns takes turns through one server until the first turn after last.
func mcpTurns(ctx context.Context, s *mcpSession, room string, last int64, mu *sync.Mutex, samples *[]time.Duration) error {
	for {
		w, err := s.call(ctx, "wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 30000})
		if err != nil {
			return err
		}
		if w.Status == string(stick.NotYet) {
			continue
		}
		if w.Status != string(stick.YourTurn) {
			return fmt.Errorf("wait_for_turn: %s (%s)", w.Status, w.Reason)
		}
		if w.Handoff != nil && w.TurnID <= last {
			if d, ok := since(&stick.Handoff{Status: w.Handoff.Status}); ok {
				mu.Lock()
				*samples = append(*samples, d)
				mu.Unlock()
			}
		}
		h := stamped("take the next turn")
		if w.TurnID > last {
			h = stick.Handoff{Status: "done", NextAction: "stop"}
		}
		args := w.lease()
		args["handoff"] = map[string]any{"status": h.Status, "next_action": h.NextAction}
		if _, err := s.call(ctx, "release_stick", args); err != nil {
			return err
		}
		if w.TurnID > last {
			return nil
		}
	}
}

// idleWaiters: many servers blocked in wait_for_turn while this process
// holds the stick; their processor time is measured over a quiet span.
func idleWaiters(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "idle-waiters", Unit: "waiters"}
	procs, span := 32, e.span(30*time.Second, 2*time.Second)
	if e.o.Quick {
		procs = 4
	}
	holder, err := joinAs(ctx, e.db, e.repo, "holder")
	if err != nil {
		return nil, err
	}
	defer holder.close()
	if w, err := holder.wait(ctx, 0); err != nil || w.Status != stick.YourTurn {
		return nil, fmt.Errorf("holder: %v %v", w.Status, err)
	}
	waitCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var sessions []*mcpSession
	defer func() {
		cancel()
		wg.Wait()
		for _, s := range sessions {
			s.close()
		}
	}()
	var kids []int
	waiting := make(chan error, procs)
	for i := range procs {
		s, err := e.dial(ctx, fmt.Sprintf("idle-%02d", i))
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, s)
		kids = append(kids, s.cmd.Process.Pid)
		j, err := s.call(ctx, "join_path", map[string]any{"context_path": e.repo})
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := s.call(waitCtx, "wait_for_turn", map[string]any{"room_id": j.RoomID, "max_wait_ms": 600000})
			if waitCtx.Err() == nil {
				waiting <- fmt.Errorf("a waiter returned during the quiet span: %s %v", w.Status, err)
			}
		}()
	}
	// Give the last waiters time to block before measuring.
	settle := 2 * time.Second
	if e.o.Quick {
		settle = 500 * time.Millisecond
	}
	time.Sleep(settle)
	// On PostgreSQL the server's processes that serve the waiters work
	// for them too: counted when they run on this host.
	backends, err := e.db.LocalBackends(ctx)
	if err != nil {
		return nil, err
	}
	m := startMeter(append(kids, backends...)...)
	m.childrenOnly = true
	select {
	case err := <-waiting:
		return nil, err
	case <-time.After(span):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	m.stop(&r, 0)
	r.Count, r.Throughput = procs, 0
	r.Met = r.CPU < 2
	r.note("%d servers idle for %v: %.2f%% of one core in total", procs, span, r.CPU)
	if e.db.Postgres() {
		r.note("%d PostgreSQL server processes of the database on this host counted", len(backends))
	}
	return []Result{r}, nil
}

// startUp: spawn 'stick mcp' until its initialize response, then join a
// room and read its resident memory.
func startUp(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "start-up", Unit: "starts"}
	n := e.size(30, 5)
	var samples []time.Duration
	var peak uint64
	m := startMeter()
	for i := -1; i < n; i++ { // the first start creates the database and is not counted
		d, hwm, err := e.startOnce(ctx, m)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			samples = append(samples, d)
			peak = max(peak, hwm)
		}
	}
	m.stop(&r, len(samples))
	r.Throughput = 0
	r.latencies(samples)
	mb := float64(peak) / (1 << 20)
	r.Met = r.P50 <= 20*time.Millisecond && mb <= 25
	r.note("peak resident memory %.1f MB after join_path", mb)
	return []Result{r}, nil
}

// startOnce times one start of 'stick mcp' to its initialize response
// over raw JSON-RPC lines, then calls join_path and reads the server's
// peak resident memory.
func (e *env) startOnce(ctx context.Context, m *meter) (time.Duration, uint64, error) {
	cmd, err := e.stickCommand(ctx, "mcp")
	if err != nil {
		return 0, 0, err
	}
	c, err := startCmdTimed(cmd)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = c.Close() }()
	send := func(v string) error { return c.Send(v) }
	if err := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`); err != nil {
		return 0, 0, err
	}
	if _, err := c.response(ctx, 1); err != nil {
		return 0, 0, err
	}
	took := time.Since(c.started)
	join, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "join_path", "arguments": map[string]any{"context_path": e.repo}}})
	if err := errors.Join(send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), send(string(join))); err != nil {
		return 0, 0, err
	}
	res, err := c.response(ctx, 2)
	if err != nil {
		return 0, 0, err
	}
	if strings.Contains(res, `"isError":true`) {
		return 0, 0, fmt.Errorf("join_path failed: %s", res)
	}
	_, hwm, err := rss(c.PID())
	if err != nil {
		return 0, 0, err
	}
	err = c.finish(10 * time.Second)
	m.addReaped(c.State())
	return took, hwm, err
}

// timedChild is a child whose start time is taken just before it starts.
type timedChild struct {
	*child
	started time.Time
}

func startCmdTimed(cmd *exec.Cmd) (*timedChild, error) {
	t := time.Now()
	c, err := startCmd(cmd, "")
	if err != nil {
		return nil, err
	}
	return &timedChild{c, t}, nil
}

// response reads lines until the JSON-RPC response with the given id.
func (c *timedChild) response(ctx context.Context, id int) (string, error) {
	want := `"id":` + strconv.Itoa(id) + `,`
	for {
		line, err := c.expect(ctx, "", 30*time.Second)
		if err != nil {
			return "", err
		}
		if strings.Contains(line, want) || strings.HasSuffix(line, `"id":`+strconv.Itoa(id)+`}`) {
			return line, nil
		}
	}
}
