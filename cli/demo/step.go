package demo

import "github.com/stickhq/stick/stick"

// The kinds of step an agent reports.
const (
	stepJoined       = "joined"        // joined the room (the opener also claimed the first turn)
	stepGrant        = "grant"         // WaitForTurn granted a turn, with the handoff received
	stepReleased     = "released"      // wrote its line and released with a handoff
	stepHolding      = "holding"       // holds the stick and stops mid-turn, to be killed
	stepOwnerGone    = "owner_gone"    // WaitForTurn returned takeover_available
	stepTakeover     = "takeover"      // its Takeover committed
	stepTakeoverLost = "takeover_lost" // another member's Takeover committed first
	stepSawTakeover  = "saw_takeover"  // read another member's takeover in the log
	stepRecovered    = "recovered"     // read the log and the workspace after a takeover
	stepLeft         = "left"          // done with the plan: left the room
	stepClosed       = "closed"        // saw the room close; exits next
	stepViolation    = "violation"     // saw another holder's critical-section file
)

// step is one line of an agent's stdout: one thing it just did, as JSON.
// Agents and the driver share no memory, so this is their only report.
type step struct {
	Agent string `json:"agent"`
	Kind  string `json:"step"`
	// At is the agent's wall clock in Unix microseconds, comparable with the driver's on one host.
	At   int64  `json:"at_us"`
	PID  int    `json:"pid,omitempty"`
	Room string `json:"room,omitempty"`
	Turn int64  `json:"turn,omitempty"`
	// Seq is the event the step refers to: the handoff received, the release or takeover made.
	Seq int64 `json:"seq,omitempty"`
	// From is the author of the handoff received, or the holder that was revoked.
	From string `json:"from,omitempty"`
	// To is the member the stick went to after a release ("" when it went idle).
	To string `json:"to,omitempty"`
	// Reason is the grant reason, or the takeover reason.
	Reason string `json:"reason,omitempty"`
	// Line is the line of notes.txt the step is about.
	Line int `json:"line,omitempty"`
	// Text is a detail: the line written, the note posted, an error message.
	Text string `json:"text,omitempty"`
	// Code is the stick error code of a failed call.
	Code    string         `json:"code,omitempty"`
	Handoff *stick.Handoff `json:"handoff,omitempty"`
	// Checked is what the agent read back from the handoff's artifacts; Problem is set when they did not match.
	Checked  string    `json:"checked,omitempty"`
	Problem  string    `json:"problem,omitempty"`
	Recovery *recovery `json:"recovery,omitempty"`
}

// recovery is what a member that took over learned from the log and the
// workspace about the turn it took.
type recovery struct {
	Dead     string `json:"dead"`
	DeadTurn int64  `json:"dead_turn"`
	// GrantSeq is the event that granted the dead holder its turn.
	GrantSeq int64 `json:"grant_seq,omitempty"`
	// Handoff is the handoff the dead holder was working from (TakeoverResult.RecentHandoff).
	HandoffSeq  int64  `json:"handoff_seq,omitempty"`
	HandoffFrom string `json:"handoff_from,omitempty"`
	Status      string `json:"status,omitempty"`
	Next        string `json:"next,omitempty"`
	// Notes are the dead holder's notes during its turn.
	Notes []note `json:"notes,omitempty"`
	// Marker is what the dead holder's critical-section file said; it was removed.
	Marker string `json:"marker,omitempty"`
}

// note is one note of the log.
type note struct {
	Seq  int64  `json:"seq"`
	Text string `json:"text"`
}
