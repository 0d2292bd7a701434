// Package bench measures stick the way its users run it: real processes
// on a fresh database, one scenario at a time (handoffs through the
// library and through 'stick mcp', a crowd of waiters, claim/release
// cycles, contention, idle waiters, crash detection, start-up and a big
// database), each with its target. The stickbench command prints the
// results as a table or JSON; the package's testing.B benchmarks run the
// same scenarios for benchstat.
//
// Child processes are this program started again in a role (see package
// reexec), so a program that runs scenarios must call reexec.Main first.
package bench
