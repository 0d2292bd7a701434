// Package identity names every caller of stick, for every frontend, so no
// frontend derives an identity of its own:
//
//   - a harness's connection to 'stick mcp' ([Claims.NameConnection]): the
//     client's slug ([Slug]) and a short hash over the harness process
//     ([ServerHarness]) and the harness's session id ([SessionID]), with
//     the claim ([Claims]) that keeps two live connections from acting as
//     one member;
//   - a command run on this host ([NameInvocation]): an identity chosen
//     with --agent or $TALKING_STICK_AGENT_ID (an override, proved by
//     $TALKING_STICK_RECLAIM_TOKEN), else the identity of the harness whose
//     marker is in the environment (the same id its 'stick mcp' derives),
//     else the person, human:<user>; with the process the command belongs
//     to (its anchor: the harness, or the person's terminal shell);
//   - a caller a hub authenticated by a token ([NamePrincipal], and
//     [Claims.NameCredential] for a connection it holds): the client's
//     slug, "@" and the token name's handle ("claude-code@alex-s-team"),
//     told apart by a session where one token serves several agents of
//     one client; never from a request's agent id. Behind a proxy ('stick
//     mcp --server') that session is the harness's ([Session], sent in
//     [SessionHeader], [ProxySession] on the proxy's side), and
//     [NameSession] gives such a caller the process the hub's liveness
//     judges by the proxy's stream ([SessionProcess] on [HubHost]); every
//     frontend of a hub (MCP over HTTP, the JSON API) names the caller of
//     a request through [NameRequest], so a proxy's requests to either
//     act as one member;
//   - and the owner-only record ([Records]) that lets a harness restarted
//     in the same workspace find its member again without its reclaim
//     token.
//
// What it reads of the host (the environment, the user, the process tree)
// comes through [Facts], so tests name callers without a real harness. It
// returns a [stick.Caller] for package stick and decides nothing about
// rooms: stick judges whether a chosen id may act as a member, and whether
// a recorded member may be taken back.
package identity
