// Package postgres implements stick.Store on a PostgreSQL database with
// pgx, for teams whose hubs and agents on several hosts share one truth.
//
// Every write transaction (Update) takes one transaction-scoped advisory
// lock before its first read, so write transactions of every process and
// host run one at a time and READ COMMITTED suffices: each statement sees
// every commit made before the lock was granted. A read transaction (View)
// is a READ ONLY REPEATABLE READ snapshot, which never waits for a writer.
// Event sequence numbers are the last one plus one, taken under the lock,
// so they have no gaps. Search uses PostgreSQL's full-text search. Commits
// wake waiters of other processes with NOTIFY, delivered at commit, to one
// listening connection per Store.
package postgres
