package stick_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testkit"

	"github.com/stickhq/stick/internal/testproc"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// BenchmarkClaimReleaseCycle measures one claim plus one release by a lone
// member in one process, on a real database file.
func BenchmarkClaimReleaseCycle(b *testing.B) {
	svc, me, j := loneMember(b)
	ctx := context.Background()
	zero := time.Duration(0)
	h := stick.Handoff{Status: "benchmark turn", NextAction: "next benchmark turn"}
	b.ResetTimer()
	for b.Loop() {
		w, err := svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: j.RoomID, MaxWait: &zero})
		if err != nil || w.Status != stick.YourTurn {
			b.Fatalf("%+v %v", w, err)
		}
		if _, err := svc.Release(ctx, me, w.Lease(), h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}

// BenchmarkCrossProcessHandoff measures the time from a release committed in
// this process until WaitForTurn returns your_turn in another process and
// back: each op is two handoffs; the reported handoff-p50/p99 are one-way.
func BenchmarkCrossProcessHandoff(b *testing.B) {
	dir := b.TempDir()
	repo := mkRepo(b)
	st, err := store.OpenDir(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := newService(b, st)
	ctx := context.Background()
	me := stick.Caller{AgentID: "bench", Kind: stick.KindProcess}
	j, err := svc.JoinPath(ctx, me, stick.JoinRequest{Path: repo})
	if err != nil {
		b.Fatal(err)
	}
	p := testproc.Start(b, "pingpong", dir, repo, "peer")
	expectLine(b, p, "joined")
	h := stick.Handoff{Status: "ping", NextAction: "pong"}
	w, err := svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: j.RoomID})
	if err != nil || w.Status != stick.YourTurn {
		b.Fatalf("%+v %v", w, err)
	}
	rounds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := svc.Release(ctx, me, w.Lease(), h); err != nil {
			b.Fatal(err)
		}
		if w, err = svc.WaitForTurn(ctx, me, stick.WaitRequest{RoomID: j.RoomID}); err != nil || w.Status != stick.YourTurn {
			b.Fatalf("%+v %v", w, err)
		}
		rounds = append(rounds, time.Since(start))
	}
	b.StopTimer()
	testkit.ReportHandoffs(b, rounds)
}

// BenchmarkAppendDoc measures one append under a section of a 100 KB room
// document of 1,800 paragraphs: the new version (a delta), the current
// copy, its doc event and the one paragraph the search index re-reads.
func BenchmarkAppendDoc(b *testing.B) {
	svc, me, j := loneMember(b)
	ctx := context.Background()
	doc := "# Plan\n\n" + strings.Repeat("A line of the plan that says what to do next and why.\n\n", 1800) + "\n## Decisions\n\n"
	if _, err := svc.UpdateDoc(ctx, me, j.RoomID, doc, 0); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := svc.AppendDoc(ctx, me, j.RoomID, "- keep the parser", "Decisions"); err != nil {
			b.Fatal(err)
		}
	}
}

// loneMember opens a service on a fresh database file and joins one
// member to a room, for the benchmarks that time a lone member's calls.
func loneMember(b testing.TB) (*stick.Service, stick.Caller, stick.JoinResult) {
	b.Helper()
	st, err := store.OpenDir(b.TempDir(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc := newService(b, st)
	me := stick.Caller{AgentID: "bench", Kind: stick.KindProcess}
	j, err := svc.JoinPath(context.Background(), me, stick.JoinRequest{Path: mkRepo(b)})
	if err != nil {
		b.Fatal(err)
	}
	return svc, me, j
}

// BenchmarkRoomStateManyMembers measures get_room_state of a room of 201
// members, each with its own process: the holder, 20 live child processes
// and 180 processes that have exited. "cached" is the default service,
// whose member verdicts last one liveness poll; "every-read" has a
// liveness poll of 0, so every read probes every live member again (a
// process found exited stays so for good). probes/op counts liveness
// checks per read.
func BenchmarkRoomStateManyMembers(b *testing.B) {
	for _, bc := range []struct {
		name string
		poll time.Duration
	}{{"cached", time.Second}, {"every-read", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			st, err := store.OpenDir(b.TempDir(), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			probes := &countingLiveness{inner: procid.Checker{}}
			svc := newService(b, st, stick.WithLivenessPoll(bc.poll), stick.WithLiveness(probes))
			ctx := context.Background()
			self, err := procid.Self()
			if err != nil {
				b.Fatal(err)
			}
			holder := stick.Caller{AgentID: "holder", Kind: stick.KindHarness, Process: self}
			j, err := svc.JoinPath(ctx, holder, stick.JoinRequest{Path: mkRepo(b)})
			if err != nil {
				b.Fatal(err)
			}
			for i := range 200 {
				p := self
				if i < 20 {
					if p, err = procid.Of(testproc.Start(b, "sleep").PID()); err != nil {
						b.Fatal(err)
					}
				} else {
					p.PID, p.StartedAt = 1<<22+i, p.StartedAt.Add(-time.Hour) // no such process
				}
				c := stick.Caller{AgentID: fmt.Sprintf("member-%d", i), Kind: stick.KindHarness, Process: p}
				if _, err := svc.JoinPath(ctx, c, stick.JoinRequest{Path: j.CanonicalPath}); err != nil {
					b.Fatal(err)
				}
			}
			zero := time.Duration(0)
			if w, err := svc.WaitForTurn(ctx, holder, stick.WaitRequest{RoomID: j.RoomID, MaxWait: &zero}); err != nil || w.Status != stick.YourTurn {
				b.Fatalf("%+v %v", w, err)
			}
			probes.n = 0
			b.ResetTimer()
			for b.Loop() {
				rs, err := svc.RoomState(ctx, j.RoomID)
				if err != nil || len(rs.Members) != 201 {
					b.Fatalf("%d members, %v", len(rs.Members), err)
				}
			}
			b.ReportMetric(float64(probes.n)/float64(b.N), "probes/op")
		})
	}
}
