package browser_test

import (
	"github.com/stickhq/stick/stick"
)

// busyRoom makes the room named payments-refactor as a team would leave
// it mid-work: four members (three agents, one person), a handoff with
// artifacts, open questions and a do-not, notes of every type with a
// question and its answer, a document in its second version, and Codex
// holding the stick. It returns the room's id.
func busyRoom(l *library) string {
	l.t.Helper()
	room := l.join(claude, "payments-refactor")
	for _, m := range []member{codex, gemini, ana} {
		l.join(m, "payments-refactor")
	}
	v := l.writeDoc(ana, room, `# Payments refactor

Goal: no customer is charged twice when the provider times out.

## Plan
- [x] Reproduce the double charge (retry after a 504)
- [ ] One idempotency key per checkout, kept for 24 h
- [ ] Refunds through the same key table
- [ ] Load test: 500 checkouts/s with 5 % provider timeouts

## Owners
- charge path: Claude Code, then Codex
- refunds: Gemini CLI
- review: Ana
`, 0)
	lease := l.claim(claude, room)
	l.post(claude, room, "Reproduced: a retry after a 504 re-sends the charge with a fresh idempotency key, so the provider charges twice.", stick.DefaultNoteType, 0)
	l.pass(claude, lease, codex.id, stick.Handoff{
		Status:     "Found the double charge: Charge() builds a new idempotency key on every retry. Added a failing test that retries after a 504 and sees two charges.",
		NextAction: "Make Charge() take the key from the checkout, store it with the attempt, and make the failing test pass.",
		Artifacts: []stick.Artifact{
			{Path: "internal/pay/charge.go", Lines: []int{41, 88}, Role: stick.RoleEdit, Note: "the retry loop"},
			{Path: "internal/pay/charge_test.go", Lines: []int{120, 164}, Role: stick.RoleReview, Note: "TestRetryAfter504ChargesOnce"},
			{Path: "docs/payments.md", Role: stick.RoleContext},
		},
		OpenQuestions: []string{"Do refunds need their own key table?"},
		DoNot:         []string{"Do not change the provider client's timeout (30 s): ops tuned it."},
	})
	l.claim(codex, room)
	q := l.post(codex, room, "Should refunds share the idempotency-key table with charges, or get their own?", stick.NoteQuestion, 0)
	l.post(ana, room, "Share it: one table with a kind column keeps the unique index simple.", stick.NoteAnswer, q)
	l.post(gemini, room, "Keys expire after 24 h, as the provider's do.", stick.NoteDecision, 0)
	l.writeDoc(codex, room, `# Payments refactor

Goal: no customer is charged twice when the provider times out.

## Plan
- [x] Reproduce the double charge (retry after a 504)
- [x] One idempotency key per checkout, kept for 24 h
- [ ] Refunds through the same key table (kind column)
- [ ] Load test: 500 checkouts/s with 5 % provider timeouts

## Owners
- charge path: Claude Code, then Codex
- refunds: Gemini CLI
- review: Ana
`, v)
	return room
}

// closedRoom makes the room named release-1.3, closed by Ana with the
// given conclusion after a turn and a note, and returns its id.
func closedRoom(l *library, conclusion string) string {
	l.t.Helper()
	room := l.join(ana, "release-1.3")
	l.join(claude, "release-1.3")
	lease := l.claim(claude, room)
	l.post(claude, room, "Changelog written; tagged v1.3.0.", stick.DefaultNoteType, 0)
	l.pass(claude, lease, "", stick.Handoff{Status: "Tagged v1.3.0 and pushed the release notes.", NextAction: "Close the room."})
	l.close(ana, room, "released", conclusion)
	return room
}
