// Package identity names the callers of stick on one host: the agent id a
// harness connection derives from its client name, harness process and
// session, the claim that keeps two live connections from deriving the
// same one, and the owner-only record that lets a harness restarted in the
// same workspace find its member again without its reclaim token.
//
// It decides nothing about rooms: package stick judges whether a recorded
// member may be taken back. Frontends (the MCP server, the CLI) call it to
// name their caller and pass what it found on to stick.
package identity
