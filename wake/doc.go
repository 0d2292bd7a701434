// Package wake wakes an idle coding-agent harness session natively, so an
// agent that is addressed in a room learns of it without polling, and says
// honestly what became of each attempt.
//
// A [Registration] names one way to reach a session: Claude Code's
// per-session inbox socket ([ClaudeInbox]) or Codex's queue command
// ([CodexQueue]). [FromEnv] finds the ones a harness exports to the
// processes it runs. [Deliver] tries them in order and reports one
// [Delivery] per transport tried, with a [State]: [Queued] when the harness
// accepted the text, [Failed] when it certainly did not, and [Ambiguous]
// when it may have (the text left, no answer came in time). After an
// ambiguous attempt Deliver tries no other transport, so no session is woken
// twice; after a failed one it falls back to the next.
//
// The text sent is a fixed notice built by [Notice]: who addressed the
// session in which room and how to read it, never a message's body. The
// inbox token a registration holds is never printed, logged, marshalled,
// put in a delivery's detail, or left in the environment codex runs in.
//
// The package imports only the standard library and internal/printable
// (whose StripEscapes it cleans text with), so every frontend can use it.
package wake
