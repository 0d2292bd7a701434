package mcpserver_test

import (
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"
)

// BenchmarkMCPHandoff measures a handoff through two real 'stick mcp'
// processes: from release_stick in one until wait_for_turn returns
// your_turn in the other. Each op is a round trip (two handoffs); the
// reported handoff-p50/p99 are one-way.
func BenchmarkMCPHandoff(b *testing.B) {
	data, repo := b.TempDir(), mkRepo(b)
	a, peer := spawn(b, data, "claude-code"), spawn(b, data, "codex-mcp-client")
	room := ok(b, a, "join_path", obj{"context_path": repo}).str("room_id")
	ok(b, peer, "join_path", obj{"context_path": repo})
	stop := make(chan struct{})
	go func() {
		for {
			w, err := callErr(peer, "wait_for_turn", obj{"room_id": room, "max_wait_ms": 2000})
			if err != nil {
				return
			}
			select {
			case <-stop:
				return
			default:
			}
			if w.str("status") == "your_turn" {
				if _, err := callErr(peer, "release_stick", with(lease(w), "handoff", handoff("pong"))); err != nil {
					return
				}
			}
		}
	}()
	defer close(stop)
	w := ok(b, a, "wait_for_turn", obj{"room_id": room})
	rounds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		ok(b, a, "release_stick", with(lease(w), "handoff", handoff("ping")))
		if w = ok(b, a, "wait_for_turn", obj{"room_id": room}); w.str("status") != "your_turn" {
			b.Fatalf("%s", w.text)
		}
		rounds = append(rounds, time.Since(start))
	}
	b.StopTimer()
	testkit.ReportHandoffs(b, rounds)
}
