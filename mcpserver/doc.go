// Package mcpserver is the MCP frontend of stick: it exposes the protocol's
// tools over the Model Context Protocol (the official Go SDK), and
// translates results and coded errors into tool results with structured
// content and a short text a model can act on (handoffs, events and the
// document written by package render). It decides nothing itself: every
// rule lives in package stick.
//
// The tools are registered once and served over two transports, with the
// same names, schemas (schemas_gen.go), results and error codes:
//
//   - Server, 'stick mcp' over stdio, which a harness spawns. Package
//     identity names each connection from the client's initialize
//     handshake, the harness process and its session (and keeps two live
//     connections apart, and records members for a restarted harness);
//     the server keeps a held lease alive while the harness lives. Its
//     stdio transport (StdioTransport) answers a malformed message with a
//     JSON-RPC error instead of ending the connection.
//   - HTTPHandler, MCP over Streamable HTTP for a hub's remote members
//     ('stick serve' mounts it at /mcp behind its authentication). Each
//     call acts as the member the request's principal
//     (stick.PrincipalFrom) and the client's name make, and behind a
//     proxy the session it names (identity.SessionHeader), through the
//     service the hub gives that principal; nothing of a member lives in
//     an MCP session. A remote member is judged by its lease, one behind
//     a proxy by the proxy's liveness stream. A write that carries an
//     Idempotency-Key is done once and its result replayed to a retry.
//
// ToolList and ProxyInstructions are what the proxy 'stick mcp --server'
// (package proxy) offers in front of a hub.
package mcpserver
