// Package liveness keeps members behind proxies as alive as local ones.
//
// A harness on another host registers 'stick mcp --server URL', a local
// proxy that forwards its tool calls to a hub. The hub cannot see the
// harness's process, so the proxy holds a liveness stream to it (a
// long-lived POST to Path, full duplex, one JSON Message per line each
// way): while it is up the member is alive; when the harness exits the
// proxy says so (gone) and the member is gone at once; when the proxy or
// its host vanishes, the hub sees the stream drop, or hears nothing for
// Silence, and the member is gone once it has been out of touch for the
// room's proxy grace (stick.Policy.ProxyGrace). The proxy also names the
// leases its harness holds (keep, end), which the hub keeps alive while
// the stream is up, as a local 'stick mcp' keeps its harness's.
//
// This package holds the stream's messages and pace, shared by both ends,
// and the hub's side of the judging: Hub, a stick.GraceLiveness that
// answers for the processes a hub records for members behind proxies
// (identity.SessionProcess) from their streams, and for every other
// process as procid does. Hubs on one database server share what their
// streams tell through marks in it (Hub's WithMarker).
package liveness
