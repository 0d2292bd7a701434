package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options tunes a run. The zero value runs every scenario at the sizes of
// its target.
type Options struct {
	// Quick shrinks every scenario (counts, durations, database size) to
	// check that it works, not to measure it; targets are still judged.
	Quick bool
	// Count, when positive, replaces the number of operations of the
	// count-based scenarios (handoffs, turns, cycles, kills, starts, and
	// the big database's calls; not its size).
	Count int
	// Stick is the stick binary whose 'stick mcp' the MCP scenarios
	// start; empty means this program in its "stick" role.
	Stick string
	// Log receives one line as each scenario starts; nil for none.
	Log func(format string, args ...any)
}

// Scenario is one measurement.
type Scenario struct {
	// Name is what the command line and the table call it.
	Name string
	// What says what is measured, for the scenario list.
	What string
	// Target is the goal on a 2-core machine, as the table shows it.
	Target string
	run    func(ctx context.Context, e *env) ([]Result, error)
}

// Scenarios lists every scenario in the order the table shows them.
func Scenarios() []Scenario {
	return []Scenario{
		{"handoff-library", "release called in process A until WaitForTurn returns your_turn in process B", "p50 <= 1 ms, p99 <= 5 ms", handoffLibrary},
		{"handoff-mcp", "the same through two 'stick mcp' processes over stdio", "p50 <= 3 ms, p99 <= 10 ms", handoffMCP},
		{"handoff-crowd", "16 processes waiting in one room, round robin for 1,000 turns", "p99 <= 10 ms, every turn granted once", handoffCrowd},
		{"cycle", "claim + release cycles per second in one process", ">= 5,000/s", cycle},
		{"contention", "8 processes taking every turn they can in one room for 10 s, racing for it when idle", ">= 1,000 grants/s, 0 fencing violations, no db_busy", contention},
		{"idle-waiters", "32 'stick mcp' processes blocked in wait_for_turn for 30 s", "< 2% of one core in total", idleWaiters},
		{"crash-detection", "holder SIGKILLed until a waiting process sees owner_gone", "p50 <= 100 ms", crashDetection},
		{"start-up", "spawn 'stick mcp' until its initialize response; resident memory after join_path", "p50 <= 20 ms, RSS <= 25 MB", startUp},
		{"big-database", "10,000 rooms, 1,000,000 events: join, state, events (limit 100)", "each p99 <= 2 ms", bigDatabase},
		{"sync-backlog", "a member catches up on 10,000 pending events through Sync, 50 per page", "p99 <= 5 ms per page", syncBacklog},
		{"search", "full-text search over 100,000 notes and 100 documents, top 20 by bm25", "p99 <= 20 ms", searchEvents},
	}
}

// Run runs the named scenarios (all when names is empty), each on a fresh
// temporary database, and returns their results in order. It stops at the
// first scenario that fails to run; a missed target is a result, not an
// error.
func Run(ctx context.Context, names []string, o Options) ([]Result, error) {
	all := Scenarios()
	var chosen []Scenario
	for _, n := range names {
		i := indexOf(all, n)
		if i < 0 {
			return nil, fmt.Errorf("no scenario named %q; the scenarios are %s", n, scenarioNames(all))
		}
		chosen = append(chosen, all[i])
	}
	if len(names) == 0 {
		chosen = all
	}
	var out []Result
	for _, sc := range chosen {
		rs, err := RunOne(ctx, sc, o)
		if err != nil {
			return out, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// RunOne runs one scenario in a temporary directory it removes afterwards.
func RunOne(ctx context.Context, sc Scenario, o Options) ([]Result, error) {
	if o.Log != nil {
		size := ""
		if o.Quick {
			size = " (quick: smaller)"
		}
		o.Log("%s: %s%s", sc.Name, sc.What, size)
	}
	dir, err := os.MkdirTemp("", "stickbench-"+sc.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Name, err)
	}
	defer os.RemoveAll(dir)
	e, err := newEnv(dir, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Name, err)
	}
	rs, err := sc.run(ctx, e)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: interrupted", sc.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Name, err)
	}
	for i := range rs {
		if rs[i].Target == "" {
			rs[i].Target = sc.Target
		}
		if rs[i].Count == 0 {
			rs[i].problem("measured nothing")
		}
		rs[i].Met = rs[i].Met && len(rs[i].Problems) == 0
	}
	return rs, nil
}

func indexOf(all []Scenario, name string) int {
	for i, sc := range all {
		if sc.Name == name {
			return i
		}
	}
	return -1
}

func scenarioNames(all []Scenario) string {
	names := make([]string, len(all))
	for i, sc := range all {
		names[i] = sc.Name
	}
	return strings.Join(names, ", ")
}

// env is one scenario's world: a data directory for the database, a
// workspace (a git top level) whose room the scenario uses, and options.
type env struct {
	data string
	repo string
	o    Options
}

func newEnv(dir string, o Options) (*env, error) {
	e := &env{data: filepath.Join(dir, "data"), repo: filepath.Join(dir, "repo"), o: o}
	if err := os.MkdirAll(filepath.Join(e.repo, ".git"), 0o755); err != nil {
		return nil, err
	}
	return e, nil
}

// size picks the full or quick value, or Options.Count for counts.
func (e *env) size(full, quick int) int {
	switch {
	case e.o.Count > 0:
		return e.o.Count
	case e.o.Quick:
		return quick
	}
	return full
}

// span picks the full or quick duration.
func (e *env) span(full, quick time.Duration) time.Duration {
	if e.o.Quick {
		return quick
	}
	return full
}
