package bench

import (
	"context"
	"testing"
)

// The benchmarks run the scenarios for benchstat: b.N is the number of
// operations of the count-based scenarios (handoffs, turns, cycles, kills,
// starts, notes, messages, big-database rooms and calls, page loads, live
// events), so run them with a fixed count, for example -benchtime 500x;
// contention and the idle waiters (of 'stick mcp', of the hub and of the
// page) run at their quick spans whatever b.N is.
// Each reports its figures as metrics.

func BenchmarkHandoffLibrary(b *testing.B) { benchScenario(b, "handoff-library", false) }
func BenchmarkHandoffMCP(b *testing.B)     { benchScenario(b, "handoff-mcp", false) }
func BenchmarkHandoffCrowd(b *testing.B)   { benchScenario(b, "handoff-crowd", false) }
func BenchmarkCycle(b *testing.B)          { benchScenario(b, "cycle", false) }
func BenchmarkContention(b *testing.B)     { benchScenario(b, "contention", true) }
func BenchmarkIdleWaiters(b *testing.B)    { benchScenario(b, "idle-waiters", true) }
func BenchmarkCrashDetection(b *testing.B) { benchScenario(b, "crash-detection", false) }
func BenchmarkStartUp(b *testing.B)        { benchScenario(b, "start-up", false) }
func BenchmarkBigDatabase(b *testing.B)    { benchScenario(b, "big-database", false) }
func BenchmarkSyncBacklog(b *testing.B)    { benchScenario(b, "sync-backlog", false) }
func BenchmarkMessageWake(b *testing.B)    { benchScenario(b, "message-wake", false) }
func BenchmarkSearch(b *testing.B)         { benchScenario(b, "search", false) }
func BenchmarkHandoffREST(b *testing.B)    { benchScenario(b, "handoff-rest", false) }
func BenchmarkHandoffHTTP(b *testing.B)    { benchScenario(b, "handoff-http", false) }
func BenchmarkRemoteCrash(b *testing.B)    { benchScenario(b, "remote-crash", false) }
func BenchmarkHubIdle(b *testing.B)        { benchScenario(b, "hub-idle", true) }
func BenchmarkHubNotes(b *testing.B)       { benchScenario(b, "hub-notes", false) }
func BenchmarkServeStartUp(b *testing.B)   { benchScenario(b, "serve-start-up", false) }
func BenchmarkWebRoom(b *testing.B)        { benchScenario(b, "web-room", false) }
func BenchmarkWebLive(b *testing.B)        { benchScenario(b, "web-live", false) }
func BenchmarkWebIdle(b *testing.B)        { benchScenario(b, "web-idle", true) }

func benchScenario(b *testing.B, name string, quick bool) {
	i := indexOf(Scenarios(), name)
	if i < 0 {
		b.Fatalf("no scenario %q", name)
	}
	o := Options{Quick: quick}
	if !quick {
		o.Count = b.N
	}
	rs, err := RunOne(context.Background(), Scenarios()[i], o)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range rs {
		prefix := ""
		if len(rs) > 1 {
			prefix = r.Scenario[len("big-db "):] + "-"
		}
		if r.P50 > 0 {
			b.ReportMetric(ms(r.P50), prefix+"p50-ms")
			b.ReportMetric(ms(r.P99), prefix+"p99-ms")
		}
		if r.Throughput > 0 {
			b.ReportMetric(r.Throughput, prefix+r.Unit+"/s")
		}
		b.ReportMetric(r.CPU, prefix+"cpu-%")
		if !r.Met {
			b.Logf("%s: target missed (%s): %v", r.Scenario, r.Target, r.Notes)
		}
	}
}
