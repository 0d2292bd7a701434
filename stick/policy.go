package stick

import (
	"encoding/json"
	"time"
)

// Policy holds a room's timeouts. The zero value of a field means "use the
// service default"; Effective fills those in.
type Policy struct {
	// OwnerLeaseTTL is how long a holder may stay silent before takeover opens.
	OwnerLeaseTTL time.Duration
	// ClaimTTL is how long a reserved recipient has first right of refusal.
	ClaimTTL time.Duration
	// HeartbeatInterval is how often a holder should heartbeat.
	HeartbeatInterval time.Duration
	// PresenceTTL is how long after its last call a member still counts as active.
	PresenceTTL time.Duration
	// WaitMaxWait is how long one WaitForTurn call blocks when the caller gives no max wait.
	WaitMaxWait time.Duration
	// ProxyGrace is how long a member behind a proxy ('stick mcp --server')
	// may be out of touch with the hub (its liveness stream down: a network
	// blip, the hub restarting) before it counts as gone. Only a Liveness
	// that judges such members by their connection reads it (GraceLiveness).
	ProxyGrace time.Duration
}

// DefaultPolicy is the protocol's default policy: lease 45 min, claim 20 min,
// heartbeat 5 min, presence 4 h, wait 30 s, proxy grace 10 s.
var DefaultPolicy = Policy{
	OwnerLeaseTTL:     45 * time.Minute,
	ClaimTTL:          20 * time.Minute,
	HeartbeatInterval: 5 * time.Minute,
	PresenceTTL:       4 * time.Hour,
	WaitMaxWait:       30 * time.Second,
	ProxyGrace:        10 * time.Second,
}

// Bounds on policy values, so a typo cannot create a room that never times out
// or one that times out between two heartbeats.
// MaxWaitLimit (caps.go) bounds WaitMaxWait.
const (
	MinTTL = 100 * time.Millisecond
	MaxTTL = 30 * 24 * time.Hour
)

// Effective returns p with every zero field taken from def.
func (p Policy) Effective(def Policy) Policy {
	pick := func(v, d time.Duration) time.Duration {
		if v == 0 {
			return d
		}
		return v
	}
	return Policy{
		OwnerLeaseTTL:     pick(p.OwnerLeaseTTL, def.OwnerLeaseTTL),
		ClaimTTL:          pick(p.ClaimTTL, def.ClaimTTL),
		HeartbeatInterval: pick(p.HeartbeatInterval, def.HeartbeatInterval),
		PresenceTTL:       pick(p.PresenceTTL, def.PresenceTTL),
		WaitMaxWait:       pick(p.WaitMaxWait, def.WaitMaxWait),
		ProxyGrace:        pick(p.ProxyGrace, def.ProxyGrace),
	}
}

// Validate checks an effective policy: every value within bounds, a heartbeat
// shorter than the lease (or the holder looks stale between heartbeats) and
// presence at least one heartbeat long (or a working holder looks inactive).
func (p Policy) Validate() error {
	for _, f := range []struct {
		name string
		v    time.Duration
		max  time.Duration
	}{
		{"owner_lease_ttl_ms", p.OwnerLeaseTTL, MaxTTL},
		{"claim_ttl_ms", p.ClaimTTL, MaxTTL},
		{"heartbeat_interval_ms", p.HeartbeatInterval, MaxTTL},
		{"presence_ttl_ms", p.PresenceTTL, MaxTTL},
		{"wait_for_turn_max_wait_ms", p.WaitMaxWait, MaxWaitLimit},
		{"proxy_grace_ms", p.ProxyGrace, MaxTTL},
	} {
		if f.v < MinTTL || f.v > f.max {
			return invalidArg(f.name, "%s must be between %dms and %dms, got %dms",
				f.name, MinTTL.Milliseconds(), f.max.Milliseconds(), f.v.Milliseconds())
		}
	}
	if p.HeartbeatInterval >= p.OwnerLeaseTTL {
		return invalidArg("heartbeat_interval_ms",
			"heartbeat_interval_ms (%dms) must be shorter than owner_lease_ttl_ms (%dms), or a working holder looks stale between heartbeats",
			p.HeartbeatInterval.Milliseconds(), p.OwnerLeaseTTL.Milliseconds())
	}
	if p.PresenceTTL < p.HeartbeatInterval {
		return invalidArg("presence_ttl_ms",
			"presence_ttl_ms (%dms) must be at least heartbeat_interval_ms (%dms), or a working holder looks inactive between heartbeats",
			p.PresenceTTL.Milliseconds(), p.HeartbeatInterval.Milliseconds())
	}
	return nil
}

// PolicyUpdate changes some of a room's timeouts. A nil field is left as it
// is; a zero duration resets that field to the service default.
type PolicyUpdate struct {
	OwnerLeaseTTL     *time.Duration
	ClaimTTL          *time.Duration
	HeartbeatInterval *time.Duration
	PresenceTTL       *time.Duration
	WaitMaxWait       *time.Duration
	ProxyGrace        *time.Duration
}

// apply returns the stored overrides p changed by u, rejecting negative values.
func (u PolicyUpdate) apply(p Policy) (Policy, error) {
	if u == (PolicyUpdate{}) {
		return p, invalidArg("policy", "the policy update changes nothing").
			WithHint("give at least one of owner_lease_ttl_ms, claim_ttl_ms, heartbeat_interval_ms, presence_ttl_ms, wait_for_turn_max_wait_ms, proxy_grace_ms")
	}
	for _, f := range []struct {
		name string
		src  *time.Duration
		dst  *time.Duration
	}{
		{"owner_lease_ttl_ms", u.OwnerLeaseTTL, &p.OwnerLeaseTTL},
		{"claim_ttl_ms", u.ClaimTTL, &p.ClaimTTL},
		{"heartbeat_interval_ms", u.HeartbeatInterval, &p.HeartbeatInterval},
		{"presence_ttl_ms", u.PresenceTTL, &p.PresenceTTL},
		{"wait_for_turn_max_wait_ms", u.WaitMaxWait, &p.WaitMaxWait},
		{"proxy_grace_ms", u.ProxyGrace, &p.ProxyGrace},
	} {
		if f.src == nil {
			continue
		}
		if *f.src < 0 {
			return p, invalidArg(f.name, "%s must not be negative (0 resets it to the default), got %dms", f.name, f.src.Milliseconds())
		}
		*f.dst = *f.src
	}
	return p, nil
}

type policyJSON struct {
	OwnerLeaseTTL     int64 `json:"owner_lease_ttl_ms"`
	ClaimTTL          int64 `json:"claim_ttl_ms"`
	HeartbeatInterval int64 `json:"heartbeat_interval_ms"`
	PresenceTTL       int64 `json:"presence_ttl_ms"`
	WaitMaxWait       int64 `json:"wait_for_turn_max_wait_ms"`
	ProxyGrace        int64 `json:"proxy_grace_ms"`
}

// MarshalJSON writes the policy in the protocol's millisecond fields.
func (p Policy) MarshalJSON() ([]byte, error) {
	return json.Marshal(policyJSON{
		p.OwnerLeaseTTL.Milliseconds(), p.ClaimTTL.Milliseconds(), p.HeartbeatInterval.Milliseconds(),
		p.PresenceTTL.Milliseconds(), p.WaitMaxWait.Milliseconds(), p.ProxyGrace.Milliseconds(),
	})
}

// UnmarshalJSON reads the protocol's millisecond fields.
func (p *Policy) UnmarshalJSON(b []byte) error {
	var j policyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	ms := time.Millisecond
	*p = Policy{
		time.Duration(j.OwnerLeaseTTL) * ms, time.Duration(j.ClaimTTL) * ms, time.Duration(j.HeartbeatInterval) * ms,
		time.Duration(j.PresenceTTL) * ms, time.Duration(j.WaitMaxWait) * ms, time.Duration(j.ProxyGrace) * ms,
	}
	return nil
}
