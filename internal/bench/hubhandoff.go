package bench

import (
	"context"
	"strconv"
	"time"
)

// hubRoom is the named room the hub's scenarios meet in.
const hubRoom = "stickbench"

// handoffREST: two plain HTTP clients, each in its own process with a
// token of its own, hand the stick to each other through one hub,
// long-polling for their turns.
func handoffREST(ctx context.Context, e *env) ([]Result, error) {
	h, secrets, err := e.startHubWithTokens(ctx, "team-a", "team-b")
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	n := 0
	r, err := roundRobin(ctx, e, rotation{name: "handoff-rest", procs: 2, last: e.size(2000, 200), also: []int{h.PID()},
		launch: func(ctx context.Context, id string, last int) (*child, error) {
			c, err := e.start(ctx, []string{tokenEnv + "=" + secrets[n%len(secrets)]}, "bench-rest-turns", h.url, hubRoom, id, strconv.Itoa(last))
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

// handoffHTTP: two harnesses on other hosts, each behind its own 'stick
// mcp --server' proxy with a token of its own (one in the proxy's
// environment, the other in a file), hand the stick to each other
// through one hub; this process drives both proxies' clients, as
// handoffMCP drives two 'stick mcp' servers.
func handoffHTTP(ctx context.Context, e *env) ([]Result, error) {
	h, secrets, err := e.startHubWithTokens(ctx, "team-a", "team-b")
	if err != nil {
		return nil, err
	}
	defer func() { _ = h.Close() }()
	var sessions []*mcpSession
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	var room string
	for i, name := range []string{"claude-code", "codex"} {
		s, err := e.dialProxy(ctx, name, h.url, secrets[i], i == 1)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, s)
		j, err := s.call(ctx, "join_path", map[string]any{"name": hubRoom})
		if err != nil {
			return nil, err
		}
		room = j.RoomID
	}
	r, err := mcpRotation(ctx, e, "handoff-http", sessions, room, int64(e.size(1000, 100)), h.PID())
	if err != nil {
		return nil, err
	}
	if err := h.stop(); err != nil {
		return nil, err
	}
	r.Met = r.Met && r.P50 <= 2*time.Millisecond && r.P99 <= 10*time.Millisecond
	return []Result{r}, nil
}
