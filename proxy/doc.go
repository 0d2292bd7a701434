// Package proxy is 'stick mcp --server URL': the local stdio MCP server a
// harness on another host registers instead of 'stick mcp', which
// forwards every tool call to a hub ('stick serve') and keeps the exact
// liveness of its harness there.
//
// It offers the tools of 'stick mcp' (mcpserver.ToolList) and forwards
// each call to the hub's MCP endpoint with the official SDK's client
// over Streamable HTTP, so results, texts and error codes are the hub's
// tool handlers' own, the same as a local server's. It names its harness
// as 'stick mcp' does (identity.ServerHarness, a claimed connection id)
// and sends that as its session (identity.SessionHeader), so each harness
// session is a member of its own; and it holds a liveness stream to the
// hub (package liveness) that says when its harness exits and names the
// leases the hub keeps alive while it is up.
//
// A harness session that can be woken (Config.Wake, from the harness's
// environment: Claude Code's inbox socket, Codex's queue) is woken by its
// proxy, the process on its host, when it is addressed while none of its
// calls waits in the room: the hub claims each wake through its JSON API
// (once per unread batch) and the proxy delivers it with package wake,
// then reports the delivery state; a transport's secret never leaves the
// proxy.
//
// A hub that goes away is connected to again, with backoff, and logged
// on standard error. A call whose answer was lost is sent again; a write
// goes with an Idempotency-Key, so the hub answers its retry with the
// first result and does it once, across a restart of the hub too: the
// hub keeps each answer in its store before it sends it.
package proxy
