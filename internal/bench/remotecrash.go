package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/stickhq/stick/stick"
)

// remoteCrash: a harness on another host holds the stick through its
// proxy ('stick mcp --server', the harness's child) when it is SIGKILLed,
// while another member waits for the turn through a proxy of its own;
// measured from the kill until that wait returns takeover_available with
// owner_gone, which takes the holder's proxy seeing its harness exit and
// telling the hub over its liveness stream. The waiting member then takes
// over and hands the stick to the next harness. Each proxy must exit by
// itself once it has told the hub.
func remoteCrash(ctx context.Context, e *env) ([]Result, error) {
	r := Result{Scenario: "remote-crash", Unit: "kills"}
	n := e.size(30, 5)
	h, secrets, err := e.startHubWithTokens(ctx, "team-a", "team-b")
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	me, err := e.dialProxy(ctx, "watcher", h.url, secrets[0], true)
	if err != nil {
		return nil, err
	}
	defer me.close()
	j, err := me.call(ctx, "join_path", map[string]any{"name": hubRoom})
	if err != nil {
		return nil, err
	}
	room := j.RoomID
	var held *toolResult // the watcher's turn, between kills
	var samples []time.Duration
	var harnesses []*remoteHarness
	defer func() {
		for _, hs := range harnesses {
			hs.close()
		}
	}()
	// The processor time of this process, the hub, the watcher's proxy and
	// the harnesses; not of the holders' proxies, which are not this
	// process's children once their harness is killed.
	m := startMeter(h.PID(), me.cmd.Process.Pid)
	for i := range n {
		name := fmt.Sprintf("h%03d", i)
		hs, err := e.dialHarness(ctx, name, "claude-code", h.url, secrets[1])
		if err != nil {
			return nil, err
		}
		harnesses = append(harnesses, hs)
		if _, err := hs.call(ctx, "join_path", map[string]any{"name": hubRoom}); err != nil {
			return nil, err
		}
		if held != nil {
			args := held.lease()
			args["handoff"] = map[string]any{"status": "recovered", "next_action": "hold until killed"}
			if _, err := me.call(ctx, "release_stick", args); err != nil {
				return nil, err
			}
		}
		if err := awaitTurn(ctx, hs.mcpSession, room); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		type waited struct {
			w   toolResult
			err error
			at  time.Time
		}
		got := make(chan waited, 1)
		go func() {
			for {
				w, err := me.call(ctx, "wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 10000})
				if err != nil || w.Status != string(stick.NotYet) {
					got <- waited{w, err, time.Now()}
					return
				}
			}
		}()
		// Let the wait block first: a kill that lands before it would be
		// seen by its first look at the room, which is not a wake-up.
		time.Sleep(20 * time.Millisecond)
		t0 := time.Now()
		if err := hs.kill(); err != nil {
			return nil, err
		}
		var res waited
		select {
		case res = <-got:
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("no owner_gone within a minute of the kill of %s%s", name, logNote(hs.log))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if res.err != nil {
			return nil, res.err
		}
		if res.w.Status != string(stick.TakeoverAvailable) || res.w.Reason != string(stick.ReasonOwnerGone) {
			return nil, fmt.Errorf("after the kill of %s: wait_for_turn answered %s (%s)", name, res.w.Status, res.w.Reason)
		}
		samples = append(samples, res.at.Sub(t0))
		hs.close()
		m.addReaped(hs.cmd.ProcessState)
		if !hs.proxyExited(10 * time.Second) {
			r.problem("the proxy of %s still ran 10 s after its harness was killed%s", name, logNote(hs.log))
		}
		t, err := me.call(ctx, "takeover_stick", map[string]any{"room_id": room, "expected_turn_id": res.w.TurnID,
			"reason": "the holder's harness was killed by the benchmark"})
		if err != nil {
			return nil, err
		}
		held = &t
	}
	m.stop(&r, len(samples))
	r.latencies(samples)
	r.Throughput = 0
	if err := h.stop(); err != nil {
		return nil, err
	}
	r.Met = r.P50 <= 100*time.Millisecond
	if len(r.Problems) == 0 {
		r.note("each of the %d proxies exited by itself once its harness was killed", n)
	}
	return []Result{r}, nil
}

// awaitTurn waits through s until it holds the stick of room.
func awaitTurn(ctx context.Context, s *mcpSession, room string) error {
	for {
		w, err := s.call(ctx, "wait_for_turn", map[string]any{"room_id": room, "max_wait_ms": 30000})
		if err != nil {
			return err
		}
		switch w.Status {
		case string(stick.YourTurn):
			return nil
		case string(stick.NotYet):
			continue
		}
		return fmt.Errorf("wait_for_turn: %s (%s)", w.Status, w.Reason)
	}
}
