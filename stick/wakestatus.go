package stick

import "time"

// WakeStatus says how a member's harness session can be woken when it is
// addressed while nothing of it waits, and how the last wake went. It
// never holds a secret: a transport's token stays in the process that
// wakes.
type WakeStatus struct {
	// Transports are the ways its session can be woken, in the order they
	// are tried (claude-inbox, codex-queue).
	Transports []string `json:"transports"`
	// LastState is the last wake's delivery state: queued, ambiguous or
	// failed; "" before the first.
	LastState string `json:"last_state,omitempty"`
	// LastTransport is the transport of the last wake.
	LastTransport string `json:"last_transport,omitempty"`
	// LastAt is when the last wake was reported.
	LastAt *time.Time `json:"last_at,omitempty"`
}
