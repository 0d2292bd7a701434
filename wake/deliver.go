package wake

import (
	"context"
	"time"
)

// State is a delivery's outcome.
type State string

const (
	// Queued means the harness accepted the text.
	Queued State = "queued"
	// Ambiguous means the harness may or may not have accepted it: the
	// text was (partly) sent and no answer came before the deadline.
	Ambiguous State = "ambiguous"
	// Failed means the text was certainly not delivered: the connection
	// was refused, the socket is missing, the thread was not found, the
	// token was refused, or the text never left.
	Failed State = "failed"
)

// Delivery is what became of one transport's attempt. Detail is short and
// safe to show: cleaned of control characters, never the token and never
// the text sent.
type Delivery struct {
	Transport Transport `json:"transport"`
	State     State     `json:"state"`
	Detail    string    `json:"detail,omitempty"`
}

// String describes the delivery for people: "claude-inbox: queued (…)".
func (d Delivery) String() string {
	s := string(d.Transport) + ": " + string(d.State)
	if d.Detail != "" {
		s += " (" + d.Detail + ")"
	}
	return s
}

// DefaultTimeout bounds one transport's whole attempt when Options leave
// it unset.
const DefaultTimeout = 3 * time.Second

// Options tune Deliver.
type Options struct {
	// Timeout bounds each transport's whole attempt (connecting, sending
	// and waiting for the answer, or running codex); DefaultTimeout when
	// zero or negative.
	Timeout time.Duration
	// Codex is the codex program: a path, or a name looked up on PATH;
	// "codex" when empty.
	Codex string
}

// withDefaults fills the unset options.
func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Codex == "" {
		o.Codex = "codex"
	}
	return o
}

// Deliver sends text to the session through its registrations, in order,
// and returns one Delivery per transport tried (nil with no
// registrations). It stops at the first that queues the text. After a
// failed one it tries the next, since that one certainly did not wake the
// session; after an ambiguous one it stops, so no session is woken twice.
// Each attempt is bounded by o.Timeout and by ctx.
func Deliver(ctx context.Context, regs []Registration, text string, o Options) []Delivery {
	if len(regs) == 0 {
		return nil
	}
	o = o.withDefaults()
	out := make([]Delivery, 0, len(regs))
	for _, r := range regs {
		d := deliverOne(ctx, r, text, o)
		out = append(out, d)
		if d.State != Failed {
			break
		}
	}
	return out
}

// deliverOne runs one registration's transport within o.Timeout.
func deliverOne(ctx context.Context, r Registration, text string, o Options) Delivery {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	switch r.Transport {
	case ClaudeInbox:
		return inbox(ctx, r, text, o.Timeout)
	case CodexQueue:
		return queue(ctx, r.Address, text, o)
	}
	return Delivery{Transport: r.Transport, State: Failed, Detail: detail("unknown transport " + string(r.Transport))}
}
