// Package bench measures stick the way its users run it: real processes
// on a fresh database, one scenario at a time (handoffs through the
// library and through 'stick mcp', a crowd of waiters, claim/release
// cycles, contention, idle waiters, crash detection, start-up, a big
// database, a note addressed to a member that waits in Sync, and a hub, 'stick serve', with its HTTP clients and its web
// page), each with its target. Before the scenarios a run measures the
// floors under them, what the machine and stick's dependencies do with
// nothing of stick's logic (SQLite transactions shaped like a claim and a
// release, a pipe round trip, an HTTP round trip over loopback, an MCP
// call over stdio, a bare Go start), and judges the scenarios that have a ratio target by
// their ratio to their floor, which travels between machines where
// absolute times do not. The stickbench command prints the report as
// tables or JSON; the package's testing.B benchmarks run the same
// scenarios for benchstat.
//
// A run is on SQLite, or, with Options.Database, on PostgreSQL: every
// scenario then runs on an empty database of its own on that server
// (package rundb opens the run's store, in the parent and in every child
// process) and is judged by its target for PostgreSQL where it has one
// (Scenario.PostgresTarget), else measured for information.
//
// Child processes are this program started again in a role (see package
// reexec), so a program that runs scenarios must call reexec.Main first;
// package childproc supervises them.
package bench
