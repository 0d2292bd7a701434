// Package server is the hub, 'stick serve': one HTTP server over the store
// that serves the members of a team whose agents run on several hosts. It
// speaks a JSON API at /api/v1, one endpoint for every MCP tool, described
// by the OpenAPI 3.1 document at /api/v1/openapi.json; it mounts MCP over
// Streamable HTTP at /mcp when given a handler for it; it takes the
// liveness streams of proxies ('stick mcp --server', see package liveness)
// at /api/v1/liveness; and it answers /healthz and /metrics.
//
// It guards all of that itself: bearer tokens on every request but
// /healthz (401 with WWW-Authenticate, and RFC 9728 metadata at
// /.well-known/oauth-protected-resource), a rate limit on failed
// authentications per client address, Origin checks against other sites'
// pages, a Host check against DNS rebinding on a loopback hub, strict
// decoding of request bodies, and Idempotency-Key replay of writes.
//
// It has one job: to translate HTTP to calls of stick.Service and their
// results and coded errors back to HTTP. It decides nothing: every rule
// lives in package stick (a credential's role and rooms in the Service a
// principal is given), and who a request acts as is package identity's to
// name, from the credential and the client, never from a request field.
package server
