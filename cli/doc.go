// Package cli is the stick command line: cobra commands that turn flags and
// arguments into calls of package stick (or start a frontend such as the MCP
// server) and print the results. Rules live in package stick, not here;
// who an invocation acts as, and the process it belongs to, is package
// identity's to say; the holder process that keeps a turn for a terminal
// command lives in package holder, and how a room's text reads in package
// render. No command opens a store itself: the program that runs Execute
// gives it a Wiring (cmd/stick gives LocalWiring, the SQLite database of
// the data directory), through which every command opens the store; the
// global --database flag (or $STICK_DATABASE_URL) turns that wiring to a
// PostgreSQL database for every command at once.
package cli
