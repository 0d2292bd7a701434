// Command stickbench measures stick with real processes on fresh
// temporary databases and prints each scenario's figures beside its
// target; 'stickbench chaos' runs the chaos soak. It only wires: the
// scenarios are in internal/bench, the soak in internal/chaos.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/internal/bench"
	"github.com/stickhq/stick/internal/chaos"
	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/internal/storeurl"
)

func main() {
	reexec.Main()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// minCount is the fewest operations --count accepts: fewer give no
// meaningful 99th percentile.
const minCount = 100

// minSpan is the shortest --span accepts: processor time is counted in
// ticks of 10 ms, and a shorter span measures little but the ticks.
const minSpan = time.Second

// errMissed makes the command exit 1 without printing more.
var errMissed = errors.New("a target was missed")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errMissed):
		return 1
	}
	fmt.Fprintln(stderr, "stickbench:", err)
	return 2
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	var o bench.Options
	var asJSON, list, check bool
	root := &cobra.Command{
		Use:   "stickbench [scenario...]",
		Short: "Measure stick with real processes, scenario by scenario, against its targets",
		Long: `stickbench first measures the floors: what this machine and stick's
dependencies do with nothing of stick's logic (a claim's and a release's
SQLite transactions through stick's driver and pragmas, the same through
the sqlite3 tool for comparison, a pipe round trip between two processes,
an HTTP round trip over loopback, an MCP call of an empty tool over
stdio, a bare Go program's start). Then it runs each scenario on a fresh
temporary database with real processes (message-wake: a note addressed
to a member blocked in Sync in another process, until that Sync returns
it, each note checked); the hub's scenarios start a real 'stick serve'
and talk to it as HTTP clients with tokens, or through 'stick mcp
--server' proxies as harnesses on other hosts do, or read its web page
as a browser signed in with a viewer's token does.

It prints the machine, a table of the floors (count, p50, p99, mean,
throughput, CPU, what), and a table of the scenarios: count, p50, p99,
max, throughput, CPU (all processes of the scenario, in percent of one
core), the absolute target, and, for the scenarios that have one, the
floor base, the ratio of the scenario's figure to it and the ratio
target. Ratios travel between machines where absolute times do not: a
scenario with a ratio target meets its target when the ratio does (its
absolute target is still shown, ok or missed); when a floor it needs is
unavailable here, the absolute target decides, and a note says so.

With no arguments it runs every floor and every scenario (four to five
minutes); name scenarios to run only those and the floors they need (a
name may also be a floor's). handoff-mcp's ratio is built on
handoff-library's p50, so naming handoff-mcp runs handoff-library too. A
scenario that finds a problem (a turn granted twice, a fencing violation,
db_busy, an error no caller should see) says so under the table and
misses its target, however fast it was.

With --database (or $STICK_DATABASE_URL) every scenario runs on
PostgreSQL instead: on the server that URL names, each scenario on an
empty database of its own that it creates and drops (the URL's user needs
the CREATEDB privilege), its processes ('stick mcp', 'stick serve' and
stickbench's own) given the database's URL in their environment, never on
their command line. Each scenario is judged by its target for PostgreSQL
(see --list), or measured for information when it has none; SQLite's ratio
targets do not apply, so the floors are measured only when named. A
scenario that does not apply to the store is skipped with a line saying
why.`,
		Example: `  stickbench                       # every floor and scenario, full size
  stickbench handoff-library cycle # only these, after their floors
  stickbench message-wake          # a note addressed to a member until its waiting Sync returns it
  stickbench handoff-rest handoff-http remote-crash hub-idle hub-notes serve-start-up   # the hub's
  stickbench web-room web-live web-idle   # the hub's web page
  stickbench --span 60s web-idle   # a longer measured span
  stickbench pipe sqlite-tx        # only these floors
  stickbench --quick               # every floor and scenario, small: does it work?
  stickbench --json > bench.json   # {"machine": ..., "floors": [...], "scenarios": [...]}
  stickbench --list                # what each floor and scenario measures, and the targets
  stickbench --check cycle         # exit 1 when a target is missed
  stickbench --database postgres://bench@db.internal/postgres handoff-library contention
  stickbench chaos --duration 60s --procs 12 --seed 1`,
		Args:          cobra.ArbitraryArgs, // scenario and floor names; bench.Run says which exist
		ValidArgs:     scenarioNames(),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, names []string) (err error) {
			if list {
				fmt.Fprintln(stdout, "floors (measured first, with nothing of stick's logic):")
				for _, f := range bench.Floors() {
					fmt.Fprintf(stdout, "  %-16s %s\n", f.Name, f.What)
					if len(f.Gives) > 0 {
						fmt.Fprintf(stdout, "  %-16s gives: %s\n", "", strings.Join(f.Gives, ", "))
					}
				}
				fmt.Fprintln(stdout, "scenarios:")
				for _, sc := range bench.Scenarios() {
					fmt.Fprintf(stdout, "  %-16s %s\n  %-16s target: %s\n", sc.Name, sc.What, "", sc.Target)
					if sc.Ratio != "" {
						fmt.Fprintf(stdout, "  %-16s ratio target (decides): %s\n", "", sc.Ratio)
					}
					if sc.PostgresTarget != "" {
						fmt.Fprintf(stdout, "  %-16s target on PostgreSQL: %s\n", "", sc.PostgresTarget)
					}
				}
				return nil
			}
			if o.Count < 0 || o.Count > 0 && o.Count < minCount {
				return fmt.Errorf("--count %d is too small to give percentiles; give at least %d, or leave it out for the target's size", o.Count, minCount)
			}
			if o.Span < 0 || o.Span > 0 && o.Span < minSpan {
				return fmt.Errorf("--span %v is too short to measure processor time (the system counts it in 10 ms ticks); give at least %v, or leave it out for the target's span", o.Span, minSpan)
			}
			if !asJSON {
				o.Log = func(format string, args ...any) { fmt.Fprintf(stderr, "# "+format+"\n", args...) }
			}
			if o.Database, err = database(o.Database); err != nil {
				return err
			}
			rep, err := bench.Run(cmd.Context(), names, o)
			if err != nil {
				if len(rep.Floors)+len(rep.Scenarios) > 0 && !asJSON {
					// What finished is still worth seeing.
					_ = bench.WriteTable(stdout, rep)
				}
				return err
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false) // targets say "<=" and ">="
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if err := bench.WriteTable(stdout, rep); err != nil {
				return err
			}
			for _, r := range rep.Scenarios {
				if check && !r.Met {
					return errMissed
				}
			}
			return nil
		},
	}
	f := root.Flags()
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	f.BoolVar(&o.Quick, "quick", false, "small counts and short spans: check that every scenario works")
	f.IntVar(&o.Count, "count", 0, "operations per count-based scenario (default: the target's size)")
	f.DurationVar(&o.Span, "span", 0, "measured span of the scenarios that run for a time: cycle, contention, idle-waiters, hub-idle, web-idle (default: the target's span)")
	f.StringVar(&o.Stick, "stick", "", "the stick binary whose 'stick mcp' and 'stick serve' to measure (default: this program's copy of it)")
	f.BoolVar(&check, "check", false, "exit 1 when a scenario misses its target (its ratio target where it has one)")
	f.BoolVar(&list, "list", false, "list the floors, the scenarios and their targets")
	f.StringVar(&o.Database, "database", "", databaseUsage)
	root.AddCommand(newChaos(stdout, stderr))
	return root
}

// databaseUsage describes --database, the same for both commands.
const databaseUsage = "run on PostgreSQL: the URL of a server, postgres://USER@HOST:PORT/NAME, whose user may create databases; each scenario (or soak) runs on an empty database of its own, created and dropped (or $" + storeurl.Env + "; default: SQLite in a temporary directory)"

// database is the PostgreSQL server's URL the run uses: flag, else
// $STICK_DATABASE_URL, as for stick's own commands; "" for SQLite.
func database(flag string) (string, error) {
	if flag == "" {
		flag = os.Getenv(storeurl.Env)
	}
	if flag == "" {
		return "", nil
	}
	return flag, storeurl.Check(flag)
}

// scenarioNames are the names the command line takes: the scenarios',
// then the floors'.
func scenarioNames() []string {
	var names []string
	for _, sc := range bench.Scenarios() {
		names = append(names, sc.Name)
	}
	for _, f := range bench.Floors() {
		names = append(names, f.Name)
	}
	return names
}

func newChaos(stdout, stderr io.Writer) *cobra.Command {
	o := chaos.Options{Duration: 60 * time.Second, Procs: 12, Seed: 1}
	var quiet bool
	cmd := &cobra.Command{
		Use:   "chaos",
		Short: "Run the chaos soak: agents take turns while a driver SIGKILLs and restarts them",
		Long: `chaos starts --procs agent processes in one room. They wait, hold the stick
for a random time while writing to a shared critical-section log, release
or pass with a handoff, and take over when a holder dies. A driver, seeded
by --seed, SIGKILLs random holders and waiters and restarts them. Throughout
and at the end it checks: never two holders at once, turn ids strictly
increasing with one grant each, every handoff delivered to the next
grantee or visible to the taker-over, recovery after the last kill, a
database that passes integrity_check, and no db_busy. A failure prints
the seed, the command to reproduce it and the tail of the room's log.

With --hub the same soak runs over a hub: one 'stick serve' process owns
the database, every agent reaches it through its own 'stick mcp --server'
proxy process with a token made for the run, and the driver also SIGKILLs
proxies and the hub itself, which it starts again on the same address and
database (the proxies connect again by themselves). The same checks
apply, across every restart of the hub; besides, a proxy whose agent was
killed must exit by itself, and the hub must stop cleanly at the end.

With --database (or $STICK_DATABASE_URL) the soak runs on PostgreSQL: on
an empty database it creates on that server and drops at the end (kept,
and named, when the soak fails), which the agents (or, with --hub, every
start of the hub) open through the URL in their environment. SQLite's
integrity_check has no counterpart there and is not run.`,
		Example: `  stickbench chaos                                  # 60 s, 12 processes, seed 1
  stickbench chaos --duration 10m --procs 24 --seed 7
  stickbench chaos --hub --duration 45s --procs 8 --seed 1
  stickbench chaos --hub --database postgres://bench@db.internal/postgres`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if !quiet {
				o.Log = stderr
			}
			if o.Database, err = database(o.Database); err != nil {
				return err
			}
			rep, err := chaos.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, rep)
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.Duration, "duration", o.Duration, "how long the agents take turns")
	f.IntVar(&o.Procs, "procs", o.Procs, "agent processes")
	f.Int64Var(&o.Seed, "seed", o.Seed, "seed of the driver's choices (kills, restarts, hold times)")
	f.StringVar(&o.Dir, "dir", "", "keep the database and logs in this directory (default: a temporary one, kept only on failure)")
	f.BoolVar(&quiet, "quiet", false, "print only the result")
	f.BoolVar(&o.Hub, "hub", false, "run the soak over a hub: 'stick serve', one 'stick mcp --server' proxy per agent, and kills of proxies and the hub too")
	f.StringVar(&o.Database, "database", "", databaseUsage)
	return cmd
}
