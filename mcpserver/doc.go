// Package mcpserver is the MCP frontend of stick: it exposes the protocol's
// tools over the Model Context Protocol (the official Go SDK), has package
// identity name each connection from the client's initialize handshake, the
// harness process and its session (identity also keeps two live
// connections apart and records members for a restarted harness), and
// translates results and coded errors into tool results with structured
// content and a short text a model can act on (handoffs, events and the
// document written by package render). Its stdio transport
// (StdioTransport) answers a malformed message with a JSON-RPC error
// instead of ending the connection. It decides nothing itself:
// every rule lives in package stick.
package mcpserver
