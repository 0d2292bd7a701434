package procid

import "strconv"

// Status is the verdict of a liveness check. Only [Gone] is a proof;
// [Unknown] means the facts could not be established and the caller must
// decide by other means (usually a timeout).
type Status int

const (
	// Unknown means liveness could not be judged: the identity carries too
	// few facts, belongs to another host, or the OS refused to answer.
	Unknown Status = iota
	// Alive means the exact process is running now.
	Alive
	// Gone means the exact process is proven not to run any more: it exited
	// (also as an unreaped zombie), its pid was reused, or the host rebooted.
	Gone
)

// String returns "unknown", "alive" or "gone", for logs and messages.
func (s Status) String() string {
	switch s {
	case Unknown:
		return "unknown"
	case Alive:
		return "alive"
	case Gone:
		return "gone"
	default:
		return "Status(" + strconv.Itoa(int(s)) + ")"
	}
}
