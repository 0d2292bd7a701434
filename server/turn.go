package server

import (
	"time"

	"github.com/stickhq/stick/stick"
)

// Turns: waiting for the stick, keeping it, handing it on, taking it over,
// and managing the room's members, policy and end.

type waitIn struct {
	Cursor    string `json:"cursor,omitempty" jsonschema:"The last result's cursor: also return when the log moves past it."`
	MaxWaitMS *int64 `json:"max_wait_ms,omitempty" jsonschema:"Block at most this long (0 tries once, at most 600000); default: the room's wait_for_turn_max_wait_ms."`
}

type waitOut struct {
	stick.WaitResult
	// AgentID is the member that waited.
	AgentID string `json:"agent_id"`
}

// millis converts a duration in milliseconds, refusing one that no
// time.Duration holds; nil stays nil.
func millis(field string, ms *int64) (*time.Duration, error) {
	if ms == nil {
		return nil, nil
	}
	d := time.Duration(*ms) * time.Millisecond
	if d/time.Millisecond != time.Duration(*ms) {
		return nil, stick.Errorf(stick.CodeInvalidArgument, "%s is out of range: %d", field, *ms).With("field", field).
			WithHint("give milliseconds, for example 30000 for 30 seconds")
	}
	return &d, nil
}

// waitMS reads a long poll's wait_ms: milliseconds between 0 and
// stick.MaxWaitLimit, def when it is not given; hint says how to wait
// longer.
func waitMS(ms *int64, def time.Duration, hint string) (time.Duration, error) {
	if ms == nil {
		return def, nil
	}
	d, err := millis("wait_ms", ms)
	if err != nil {
		return 0, err
	}
	if *d < 0 || *d > stick.MaxWaitLimit {
		return 0, stick.Errorf(stick.CodeInvalidArgument, "wait_ms must be between 0 and %d, got %d", stick.MaxWaitLimit.Milliseconds(), *ms).
			With("field", "wait_ms").WithHint("%s", hint)
	}
	return *d, nil
}

// waitTurn claims the stick when the c.caller may, else waits for it up to
// max_wait_ms: a long poll, which the hub's stop ends with its not_yet.
func waitTurn(c *call, in waitIn) (waitOut, error) {
	wait, err := millis("max_wait_ms", in.MaxWaitMS)
	if err != nil {
		return waitOut{}, err
	}
	if wait == nil || *wait > 0 {
		end, err := c.longPoll()
		if err != nil {
			return waitOut{}, err
		}
		defer end()
	}
	res, err := c.svc.WaitForTurn(c.ctx, c.caller, stick.WaitRequest{RoomID: c.room, Cursor: in.Cursor, MaxWait: wait})
	if err == nil && res.Status == stick.YourTurn {
		c.s.metrics.grants.Inc()
	}
	return waitOut{WaitResult: res, AgentID: c.caller.AgentID}, err
}

type leaseIn struct {
	LeaseID        string `json:"lease_id" jsonschema:"From your_turn or takeover."`
	ExpectedTurnID int64  `json:"expected_turn_id" jsonschema:"The turn_id of that result."`
}

func (c *call) lease(in leaseIn) stick.Lease {
	return stick.Lease{RoomID: c.room, LeaseID: in.LeaseID, TurnID: in.ExpectedTurnID}
}

// heartbeat renews the holder's lease.
func heartbeat(c *call, in leaseIn) (stick.HeartbeatResult, error) {
	return c.svc.Heartbeat(c.ctx, c.caller, c.lease(in))
}

type releaseIn struct {
	leaseIn
	Handoff stick.Handoff `json:"handoff" jsonschema:"For the next holder."`
}

// release ends the turn with a handoff.
func release(c *call, in releaseIn) (stick.ReleaseResult, error) {
	return c.svc.Release(c.ctx, c.caller, c.lease(in.leaseIn), in.Handoff)
}

type passIn struct {
	leaseIn
	ToAgentID string        `json:"to_agent_id" jsonschema:"A member whose status is active or away."`
	Handoff   stick.Handoff `json:"handoff" jsonschema:"For the next holder."`
}

// pass ends the turn with a handoff to one member.
func pass(c *call, in passIn) (stick.ReleaseResult, error) {
	return c.svc.Pass(c.ctx, c.caller, c.lease(in.leaseIn), in.ToAgentID, in.Handoff)
}

type takeoverIn struct {
	ExpectedTurnID int64  `json:"expected_turn_id" jsonschema:"The turn_id of the takeover_available result."`
	Reason         string `json:"reason" jsonschema:"Why, e.g. owner lease expired."`
}

// takeover takes the stick of a failed turn.
func takeover(c *call, in takeoverIn) (stick.TakeoverResult, error) {
	res, err := c.svc.Takeover(c.ctx, c.caller, c.room, in.ExpectedTurnID, in.Reason)
	if err == nil {
		c.s.metrics.takeovers.Inc()
	}
	return res, err
}

type leaveOut struct {
	RoomID  string `json:"room_id"`
	AgentID string `json:"agent_id"`
	Left    bool   `json:"left"`
}

// leave takes the c.caller out of the room's member sequence.
func leave(c *call, _ struct{}) (leaveOut, error) {
	if err := c.svc.Leave(c.ctx, c.caller, c.room); err != nil {
		return leaveOut{}, err
	}
	return leaveOut{RoomID: c.room, AgentID: c.caller.AgentID, Left: true}, nil
}

type closeIn struct {
	Reason     string `json:"reason,omitempty" jsonschema:"Why."`
	Conclusion string `json:"conclusion,omitempty" jsonschema:"The outcome, markdown; it goes into the document's Conclusion section."`
}

// closeRoom closes the room for good, with a conclusion.
func closeRoom(c *call, in closeIn) (stick.CloseResult, error) {
	return c.svc.Close(c.ctx, c.caller, c.room, in.Reason, in.Conclusion)
}

type policyIn struct {
	OwnerLeaseTTLMS *int64 `json:"owner_lease_ttl_ms,omitempty" jsonschema:"Silence before takeover opens; 0 resets to the default."`
	ClaimTTLMS      *int64 `json:"claim_ttl_ms,omitempty" jsonschema:"Claim time of a reserved recipient; 0 resets."`
	HeartbeatMS     *int64 `json:"heartbeat_interval_ms,omitempty" jsonschema:"Heartbeat interval, below the lease; 0 resets."`
	PresenceTTLMS   *int64 `json:"presence_ttl_ms,omitempty" jsonschema:"A member is active this long after a call; 0 resets."`
	WaitMaxWaitMS   *int64 `json:"wait_for_turn_max_wait_ms,omitempty" jsonschema:"Default max_wait_ms of a wait; 0 resets."`
	ProxyGraceMS    *int64 `json:"proxy_grace_ms,omitempty" jsonschema:"How long a member behind a proxy may be out of touch with the hub before it is gone; 0 resets."`
}

type policyOut struct {
	RoomID string       `json:"room_id"`
	Policy stick.Policy `json:"policy"`
}

// setPolicy changes the room's timeouts given.
func setPolicy(c *call, in policyIn) (policyOut, error) {
	var u stick.PolicyUpdate
	durations := []struct {
		field string
		ms    *int64
		to    **time.Duration
	}{
		{"owner_lease_ttl_ms", in.OwnerLeaseTTLMS, &u.OwnerLeaseTTL}, {"claim_ttl_ms", in.ClaimTTLMS, &u.ClaimTTL},
		{"heartbeat_interval_ms", in.HeartbeatMS, &u.HeartbeatInterval}, {"presence_ttl_ms", in.PresenceTTLMS, &u.PresenceTTL},
		{"wait_for_turn_max_wait_ms", in.WaitMaxWaitMS, &u.WaitMaxWait}, {"proxy_grace_ms", in.ProxyGraceMS, &u.ProxyGrace},
	}
	for _, d := range durations {
		var err error
		if *d.to, err = millis(d.field, d.ms); err != nil {
			return policyOut{}, err
		}
	}
	p, err := c.svc.SetPolicy(c.ctx, c.caller, c.room, u)
	return policyOut{RoomID: c.room, Policy: p}, err
}

type reorderIn struct {
	AgentIDs []string `json:"agent_ids" jsonschema:"Members in their new order; the others follow."`
}

type membersOut struct {
	RoomID  string               `json:"room_id"`
	Members []stick.MemberStatus `json:"members"`
}

// reorder sets the order the stick goes round in.
func reorder(c *call, in reorderIn) (membersOut, error) {
	ms, err := c.svc.ReorderMembers(c.ctx, c.caller, c.room, in.AgentIDs)
	return membersOut{RoomID: c.room, Members: ms}, err
}
