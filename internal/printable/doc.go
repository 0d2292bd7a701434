// Package printable keeps what a client names itself or sends as a key
// fit to use as a name: the printable runes alone, within a byte budget.
// The MCP server names the bad key of a tool call with it, and package
// identity the display name of a client. ASCII is the check of a header
// value that names something: the hub's client names and idempotency keys.
// StripEscapes removes terminal escape sequences whole, for the text of
// members that a console shows and a harness is woken with.
package printable
