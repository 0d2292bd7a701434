// Package chaos is the chaos soak of stick: many real processes take turns
// in one room of one SQLite file while a driver SIGKILLs holders, reserved
// recipients and waiters at random and restarts them, and independent
// checks prove that the protocol's guarantees held throughout.
//
// [Run] starts Options.Procs agent processes (the "chaos-agent" role of the
// running executable, see package reexec, supervised by package
// childproc) over a fresh data directory. Each
// agent loops: wait for its turn, hold the stick for a random time while
// appending lines to a shared check file (heartbeating when it holds
// longer than a heartbeat, sometimes lazily but always within its lease),
// then release or pass with a handoff that carries a unique token. An
// agent told takeover_available takes over. Now and then an agent stalls
// (stops heartbeating until its lease expires) or dawdles (does not claim
// a reservation in time), so timeouts open takeovers too, not only deaths.
//
// What is checked, during the run and at the end:
//
//   - One holder at a time: the check file, written with one O_APPEND
//     write per line by agents and by the driver (which writes "kill"
//     before each SIGKILL and "killed" after the reap), never shows an
//     agent entering its critical section while another is inside, unless
//     the one inside was being killed and writes nothing afterwards.
//     Agents stop writing a safety margin before their lease expires, as a
//     fenced client must.
//   - Turns: the room's event log grants turn ids 1, 2, 3, ... one grant
//     event each; releases and passes come from the current holder; every
//     handoff is delivered to exactly the next grantee (its claim event
//     points at the handoff and the grantee wrote the handoff's token in
//     the check file) or, when the recipient was taken over, is the pending
//     handoff named by the takeover event and seen by the taker-over; a
//     takeover for a gone process names a process the driver killed, and
//     one after a kill and reap finds the process gone rather than timed
//     out; no agent loses its lease before the lease expired; every
//     release or pass an agent saw succeed is in the log.
//   - Recovery: the room never goes longer than the takeover window (lease
//     or claim TTL plus a margin) without a live holder; in particular,
//     after every kill, and after the final one (always the holder), some
//     live process holds the stick again within it.
//   - Health: the database's integrity check finds it ok, and no agent or driver call
//     ever returned db_busy or another unexpected error code.
//
// Over a hub (Options.Hub), one 'stick serve' process owns the database
// and every agent reaches the room, a named one, over MCP through its own
// 'stick mcp --server' proxy process (the agent is the proxy's harness),
// with a token made for the run. The driver then kills three things: an
// agent (its proxy must tell the hub at once), an agent's proxy (the
// agent, cut off from the room, exits at once; the hub judges the member
// gone after the room's proxy grace) and, every few seconds, the hub,
// which it starts again on the same address and database while the
// proxies connect again by themselves. The checks above hold unchanged
// across every restart (no turn is granted twice, no handoff lost), with
// "known gone" read as the hub can know it (see
// sectionChecker.knownGone). Besides, a proxy whose agent was killed must
// exit by itself, and the hub must stop cleanly at the end. The room's
// recovery after a kill of the hub is timed from its return. An agent
// whose write's answer a restart lost reads the room's log to learn what
// happened (see reconcile.go), and the checks hold it to the log.
//
// With Options.Database the soak runs on PostgreSQL, on an empty database
// made for it (package rundb): the agents, or over a hub every start of
// the hub, open it through its URL in their environment. The checks are
// the same, but for SQLite's integrity check, which has no counterpart
// there.
//
// A failure reports the seed, the command that reproduces the soak and the
// tail of the room's event log. One seed drives every random choice of the
// driver (kill times, victims) and, through seeds derived from it, of the
// agents (hold times, passes, stalls); process scheduling still differs
// from run to run, so a seed reproduces the same plan, not the same
// interleaving, and a rare failure may need a few runs to reappear.
package chaos
