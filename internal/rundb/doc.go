// Package rundb is where a measured run keeps its store: stickbench's
// scenarios and the chaos soak open "the store of this run" through it,
// in the parent and in every child process, so that one flag moves the
// whole run from SQLite to PostgreSQL.
//
// A DB is a data directory (the SQLite database, and the files of the
// run's hosts) and, for PostgreSQL, the URL of a database made for the
// run alone on a server the user names (Server.Fresh creates it, and
// drops it afterwards), so every run starts from an empty database. Child
// processes get the URL through their environment (Env), never their
// command line, which any user of the host can read; messages show it
// with its password hidden (String).
package rundb
