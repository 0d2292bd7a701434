package liveness

import (
	"time"

	"github.com/stickhq/stick/stick"
)

// Path is where a hub takes liveness streams: a POST with the proxy's
// session in identity.SessionHeader and its harness's client name in the
// X-Stick-Client header, authenticated as every request.
const Path = "/api/v1/liveness"

// ContentType is the content type of both directions of a stream: one
// JSON Message per line.
const ContentType = "application/x-ndjson"

// PingEvery is how often each end of a stream sends a ping when it has
// nothing else to say, and Silence how long an end waits without hearing
// a line before it takes the stream for dead: the hub then counts the
// member out of touch, and the proxy connects again.
const (
	PingEvery = 2 * time.Second
	Silence   = 3 * PingEvery
)

// Message types a proxy sends.
const (
	// Hello opens a stream, with the leases the harness holds (Leases),
	// which the hub keeps alive while the stream is up.
	Hello = "hello"
	// Keep adds a lease (Lease) the harness was granted.
	Keep = "keep"
	// End stops keeping the lease of a room (RoomID): its turn ended.
	End = "end"
	// Gone says the harness exited: the member is gone at once, and the
	// session can never come back. The hub ends the stream.
	Gone = "gone"
)

// Message types a hub sends.
const (
	// Ready says the hub took the stream: the member is alive.
	Ready = "ready"
	// Shutdown says the hub is stopping: connect again in a moment.
	Shutdown = "shutdown"
)

// Ping is sent by either end when it has had nothing to say for
// PingEvery.
const Ping = "ping"

// Message is one line of a stream.
type Message struct {
	Type string `json:"type"`
	// Leases are the leases of a Hello.
	Leases []stick.Lease `json:"leases,omitempty"`
	// Lease is the lease of a Keep.
	Lease *stick.Lease `json:"lease,omitempty"`
	// RoomID is the room of an End.
	RoomID string `json:"room_id,omitempty"`
	// AgentID is the member a Ready stream keeps alive.
	AgentID string `json:"agent_id,omitempty"`
}
