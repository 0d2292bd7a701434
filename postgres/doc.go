// Package postgres implements stick.Store on a PostgreSQL database with
// pgx, for teams whose hubs and agents on several hosts share one truth.
//
// Every write transaction (Update) takes one transaction-scoped advisory
// lock before its first read, so write transactions of every process and
// host run one at a time and READ COMMITTED suffices: each statement sees
// every commit made before the lock was granted. A read transaction (View)
// is a READ ONLY REPEATABLE READ snapshot, which never waits for a writer.
// Event sequence numbers are the last one plus one, taken under the lock,
// so they have no gaps. A transaction sends its statements in as few
// round trips as its reads allow (see pipeline.go): writes wait for the
// next read or the commit, and reading a room reads what goes with it.
// Search uses PostgreSQL's full-text search. Commits wake waiters of
// other processes with NOTIFY, delivered at commit, to one listening
// connection per Store.
//
// Crash detection across hosts: a long-lived process that stands for
// another ('stick mcp' for its harness) marks it (Store.Mark): a row in
// process_marks and a session advisory lock, keyed by the row, held on
// the Store's listening connection. The server lets the lock go the
// moment that connection ends, however the process ends, so Marks (the
// Store's Liveness) proves a process of another host Alive while one of
// its marks is held and Gone once none is; processes of this host are
// judged by procid, and processes without marks by their leases. A
// waiter watching a holder blocks, on a connection of the judging pool,
// in a request for the mark's lock, granted the moment the mark is let
// go: it learns of the crash in milliseconds, not at a poll. A process
// cut off from the database counts as gone until it connects again and
// takes its marks again; its writes meanwhile are fenced by their leases.
// A host that vanishes without closing its connections is noticed by TCP
// keepalives: the listening connection asks the server for
// tcp_keepalives_idle 10 s, interval 5 s, count 3 (unless the URL sets
// them), so its marks go within 25 s; this side's connections keep the
// same pace, so a vanished server is noticed as fast.
//
// Connections per Store: the pool of transactions (Options.MaxConns,
// pgxpool's default when zero), the listening connection, and, once a
// Liveness judges someone, a judging pool of Options.MaxWatches + 2.
package postgres
