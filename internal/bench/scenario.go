package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/rundb"
)

// Options tunes a run. The zero value runs every scenario at the sizes of
// its target.
type Options struct {
	// Quick shrinks every scenario (counts, durations, database size) to
	// check that it works, not to measure it; targets are still judged.
	Quick bool
	// Count, when positive, replaces the number of operations of the
	// count-based scenarios (handoffs, turns, cycles, kills, starts,
	// messages, and the big database's calls; not its size).
	Count int
	// Span, when positive, replaces the measured span of the scenarios
	// that run for a time (cycle, contention, the idle waiters of 'stick
	// mcp', of the hub and of the page).
	Span time.Duration
	// Stick is the stick binary whose 'stick mcp' the MCP scenarios
	// start, and whose 'stick serve' the hub's; empty means this program
	// in its "stick" role.
	Stick string
	// Log receives one line as each scenario starts; nil for none.
	Log func(format string, args ...any)
	// Database, when set, is the URL of a PostgreSQL server on which
	// every scenario runs instead of SQLite, each on an empty database of
	// its own that it creates and drops (the URL's user needs the CREATEDB
	// privilege), judged by the targets for PostgreSQL (see
	// Scenario.PostgresTarget). Floors are then measured only when named:
	// they are the bases of SQLite's ratio targets.
	Database string
}

// Scenario is one measurement.
type Scenario struct {
	// Name is what the command line and the table call it.
	Name string
	// What says what is measured, for the scenario list.
	What string
	// Target is the absolute goal on a 2-core machine, as the table
	// shows it.
	Target string
	// Ratio is the target relative to the floor in words, empty for a
	// scenario without one.
	Ratio string
	// PostgresTarget is the absolute goal on PostgreSQL (Options.Database),
	// empty for a scenario measured there for information only.
	PostgresTarget string
	run            func(ctx context.Context, e *env) ([]Result, error)
	ratio          *ratioTarget
	// pgMet judges one result against PostgresTarget.
	pgMet func(Result) bool
	// skip says why the scenario does not apply to a run on PostgreSQL
	// (pg) or on SQLite, or returns "" when it does.
	skip func(pg bool) string
}

// Scenarios lists every scenario in the order the table shows them.
func Scenarios() []Scenario {
	all := []Scenario{
		{Name: "handoff-library", What: "release called in process A until WaitForTurn returns your_turn in process B", Target: "p50 <= 1 ms, p99 <= 5 ms", run: handoffLibrary},
		{Name: "handoff-mcp", What: "the same through two 'stick mcp' processes over stdio", Target: "p50 <= 3 ms, p99 <= 10 ms", run: handoffMCP},
		{Name: "handoff-crowd", What: "16 processes waiting in one room, round robin for 1,000 turns, each granted once", Target: "p99 <= 10 ms", run: handoffCrowd},
		{Name: "cycle", What: "claim + release cycles per second in one process", Target: ">= 5,000/s", run: cycle},
		{Name: "contention", What: "8 processes taking every turn they can in one room for 10 s, racing for it when idle; no fencing violation, no db_busy", Target: ">= 1,000 grants/s", run: contention},
		{Name: "idle-waiters", What: "32 'stick mcp' processes blocked in wait_for_turn for 30 s", Target: "< 2% of one core in total", run: idleWaiters},
		{Name: "crash-detection", What: "holder SIGKILLed until a waiting process sees owner_gone", Target: "p50 <= 100 ms", run: crashDetection},
		// A holder of another host, whose death only the database's
		// sessions tell: PostgreSQL only.
		{Name: "cross-host-crash", What: "a holder standing for a process of another host, marked in the database, SIGKILLed until a process judging by the marks, waiting, sees owner_gone", Target: "none on SQLite (PostgreSQL only)", run: crossHostCrash, skip: onPostgresOnly},
		{Name: "start-up", What: "spawn 'stick mcp' until its initialize response; resident memory after join_path", Target: "p50 <= 20 ms, RSS <= 25 MB", run: startUp},
		{Name: "big-database", What: "10,000 rooms, 1,000,000 events: join, state, events (limit 100)", Target: "each p99 <= 2 ms", run: bigDatabase},
		{Name: "sync-backlog", What: "a member catches up on 10,000 pending events through Sync, 50 per page", Target: "p99 <= 5 ms per page", run: syncBacklog},
		{Name: "message-wake", What: "a note addressed to a member posted in one process until that member's Sync, blocked in another process, returns it among the notes addressed to it", Target: "p50 <= 2 ms", run: messageWake},
		{Name: "search", What: "full-text search over 100,000 notes and 100 documents, top 20 by bm25", Target: "p99 <= 20 ms", run: searchEvents},
		// The hub's: a real 'stick serve' on a loopback port, with tokens,
		// and plain HTTP clients of its JSON API, or 'stick mcp --server'
		// proxies in front of it, as harnesses on other hosts run them.
		{Name: "handoff-rest", What: "release through the hub's JSON API in one HTTP client process until the other's long-polled wait answers your_turn", Target: "p50 <= 2 ms", run: handoffREST},
		{Name: "handoff-http", What: "the MCP handoff through two 'stick mcp --server' proxies of one 'stick serve', each with a token of its own", Target: "p50 <= 2 ms, p99 <= 10 ms", run: handoffHTTP},
		{Name: "remote-crash", What: "a harness behind a 'stick mcp --server' proxy SIGKILLed while it holds the stick until a member waiting through another proxy sees owner_gone", Target: "p50 <= 100 ms", run: remoteCrash},
		{Name: "hub-idle", What: "200 HTTP clients long-polling one 'stick serve' for their turn for 30 s: the hub's processor time and memory", Target: "hub CPU < 3% of one core, RSS <= 80 MB", run: hubIdle},
		{Name: "hub-notes", What: "16 HTTP client processes posting notes to one room of one 'stick serve'", Target: ">= 3,000 notes/s", run: hubNotes},
		{Name: "serve-start-up", What: "spawn 'stick serve' on a database with tokens until it answers an authenticated request", Target: "p50 <= 50 ms", run: serveStartUp},
		// The hub's web page, read as a browser signed in as a viewer
		// reads it: the room's page, its live stream (Server-Sent Events).
		{Name: "web-room", What: "GET /rooms/{id} of a room with 100,000 events from one 'stick serve' until the first byte of the answer", Target: "p99 <= 50 ms", run: webRoom},
		{Name: "web-live", What: "a note committed through the library in another store until a page's live stream of the room on 'stick serve' has read it", Target: "p50 <= 20 ms", run: webLive},
		{Name: "web-idle", What: "100 pages of a room open on one 'stick serve', each with its live stream, for 30 s: the hub's processor time", Target: "hub CPU < 2% of one core", run: webIdle},
	}
	ratios, pg := ratioTargets(), postgresTargets()
	for i := range all {
		if t := ratios[all[i].Name]; t != nil {
			all[i].ratio, all[i].Ratio = t, t.text
		}
		if t, ok := pg[all[i].Name]; ok {
			all[i].PostgresTarget, all[i].pgMet = t.text, t.met
		}
	}
	return all
}

// Report is what a run measured: the machine, the store, the floors, the
// scenarios, and the scenarios skipped because they do not apply to the
// store.
type Report struct {
	Machine Machine `json:"machine"`
	// Store is "sqlite", or "postgresql" with Options.Database.
	Store     string        `json:"store"`
	Floors    []FloorResult `json:"floors"`
	Scenarios []Result      `json:"scenarios"`
	Skipped   []Skipped     `json:"skipped,omitempty"`
}

// Skipped is a scenario a run skipped, and why.
type Skipped struct {
	Scenario string `json:"scenario"`
	Why      string `json:"why"`
}

// Run runs the named scenarios (all when names is empty), each on a fresh
// temporary database, and returns their results in order, after the
// floors they need, measured first. A name may also be a floor's, to
// measure it alone; every floor is measured when every scenario runs. A
// scenario whose ratio target is built on another scenario's result runs
// after it (the other is added when not named). It stops at the first
// scenario that fails to run; a missed target is a result, not an error.
func Run(ctx context.Context, names []string, o Options) (Report, error) {
	rep := Report{Machine: ThisMachine(), Store: "sqlite", Floors: []FloorResult{}, Scenarios: []Result{}}
	pg := o.Database != ""
	chosen, floors, err := plan(names, pg)
	if err != nil {
		return rep, err
	}
	if pg {
		rep.Store = "postgresql"
		// Fail before the first scenario on a server that cannot be used.
		srv, err := rundb.Connect(ctx, o.Database)
		if err != nil {
			return rep, err
		}
		if o.Log != nil {
			o.Log("store: PostgreSQL on %s, an empty database per scenario; floors only when named (they are the bases of SQLite's ratio targets)", srv)
		}
	}
	for _, fl := range floors {
		rs, err := measureFloor(ctx, fl, o)
		if err != nil {
			return rep, err
		}
		rep.Floors = append(rep.Floors, rs...)
	}
	for _, st := range chosen {
		if st.addedFor != "" && o.Log != nil {
			o.Log("%s: added: the ratio target of %s is built on its p50", st.Name, st.addedFor)
		}
		if why := st.skipFor(pg); why != "" {
			if o.Log != nil {
				o.Log("%s: skipped: %s", st.Name, why)
			}
			rep.Skipped = append(rep.Skipped, Skipped{Scenario: st.Name, Why: why})
			continue
		}
		rs, err := RunOne(ctx, st.Scenario, o)
		if err != nil {
			return rep, err
		}
		if st.ratio != nil && !pg {
			for i := range rs {
				st.ratio.judge(&rs[i], rep.Floors, rep.Scenarios)
			}
		}
		rep.Scenarios = append(rep.Scenarios, rs...)
	}
	return rep, nil
}

// step is a scenario in a run's plan; addedFor names the scenario it
// was added for, when it was not asked for.
type step struct {
	Scenario
	addedFor string
}

// plan returns the scenarios to run, in order, each after the scenarios
// its ratio target is built on, and the floors their ratio targets need
// (those named too; all of them when names is empty). On PostgreSQL (pg)
// no ratio target applies: the scenarios come as named, and the floors
// only when named.
func plan(names []string, pg bool) ([]step, []Floor, error) {
	all, allFloors := Scenarios(), Floors()
	var asked []Scenario
	namedFloors := map[string]bool{}
	for _, n := range names {
		if i := indexOf(all, n); i >= 0 {
			asked = append(asked, all[i])
			continue
		}
		if slices.ContainsFunc(allFloors, func(f Floor) bool { return f.Name == n }) {
			namedFloors[n] = true
			continue
		}
		return nil, nil, fmt.Errorf("no scenario or floor named %q; the scenarios are %s; the floors are %s",
			n, scenarioNames(all), floorNames(allFloors))
	}
	if len(names) == 0 {
		asked = all
	}
	var out []step
	planned := map[string]bool{}
	for _, sc := range asked {
		if planned[sc.Name] {
			continue
		}
		if sc.ratio != nil && !pg {
			for _, p := range sc.ratio.base {
				if p.scenario && !planned[p.name] {
					out = append(out, step{Scenario: all[indexOf(all, p.name)], addedFor: sc.Name})
					planned[p.name] = true
				}
			}
		}
		out = append(out, step{Scenario: sc})
		planned[sc.Name] = true
	}
	needed := map[string]bool{}
	for _, st := range out {
		if st.ratio != nil && !pg {
			for _, p := range append(slices.Clone(st.ratio.base), st.ratio.beside...) {
				if !p.scenario {
					needed[p.name] = true
				}
			}
		}
	}
	var floors []Floor
	for _, f := range allFloors {
		if len(names) == 0 && !pg || namedFloors[f.Name] || slices.ContainsFunc(f.gives(), func(g string) bool { return needed[g] }) {
			floors = append(floors, f)
		}
	}
	return out, floors, nil
}

func floorNames(all []Floor) string {
	names := make([]string, len(all))
	for i, f := range all {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// RunOne runs one scenario in a temporary directory it removes afterwards,
// on SQLite, or on an empty PostgreSQL database it creates and drops when
// Options.Database is set. A scenario that does not apply to the store is
// an error (Run skips it instead).
func RunOne(ctx context.Context, sc Scenario, o Options) (_ []Result, err error) {
	pg := o.Database != ""
	if why := sc.skipFor(pg); why != "" {
		return nil, fmt.Errorf("%s: %s", sc.Name, why)
	}
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
	if pg {
		drop, err := e.onPostgres(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.Name, err)
		}
		defer func() {
			if derr := drop(); derr != nil && err == nil {
				err = fmt.Errorf("%s: %w", sc.Name, derr)
			}
		}()
	}
	rs, err := sc.run(ctx, e)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: interrupted", sc.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sc.Name, err)
	}
	for i := range rs {
		if pg {
			sc.judgeOnPostgres(&rs[i])
		}
		if rs[i].Target == "" {
			rs[i].Target = sc.Target
		}
		if rs[i].Count == 0 {
			rs[i].problem("measured nothing")
		}
		rs[i].TargetMet = rs[i].Met
		rs[i].Met = rs[i].TargetMet && len(rs[i].Problems) == 0
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

// env is one scenario's world: a data directory for the database, the
// store (the SQLite database in that directory, or a PostgreSQL
// database), a workspace (a git top level) whose room the scenario uses,
// the directory all are in, for the scenario's other files, and options.
type env struct {
	data string
	db   rundb.DB
	repo string
	dir  string
	o    Options
}

func newEnv(dir string, o Options) (*env, error) {
	e := &env{data: filepath.Join(dir, "data"), repo: filepath.Join(dir, "repo"), dir: dir, o: o}
	e.db = rundb.DB{Dir: e.data}
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

// span picks the full or quick duration, or Options.Span.
func (e *env) span(full, quick time.Duration) time.Duration {
	switch {
	case e.o.Span > 0:
		return e.o.Span
	case e.o.Quick:
		return quick
	}
	return full
}
