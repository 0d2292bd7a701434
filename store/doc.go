// Package store keeps rooms, members, events, room documents and a hub's
// tokens (the hashes of their secrets, never the secrets) in one SQLite
// database that many processes on a host share safely, searches them
// with a full-text index (FTS5), and wakes waiters when any of them commits.
// It implements stick.Store.
//
// Every connection sets WAL, synchronous=NORMAL, a busy timeout and foreign
// keys; every write transaction is BEGIN IMMEDIATE; the schema carries a
// version and migrates forward only. A database on a network filesystem, from
// a newer version, or that is not a stick database is refused at Open with a
// coded stick.Error that says what to do.
package store
