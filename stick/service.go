package stick

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/procid"
)

// Service is the public API of the protocol. Every operation runs inside one
// store transaction and re-checks fencing there, so any number of Services in
// any number of processes may share one Store safely. A Service is safe for
// concurrent use.
//
// A Service made by New acts for whoever runs it, unrestricted: the local
// frontends (the CLI, 'stick mcp') are trusted as the user's own
// programs. One made by As acts for a Principal, the credential a hub
// authenticated: every method then checks the principal's role and the
// rooms it reaches (see Access).
type Service struct {
	*core
	// principal is who the Service acts for; nil for no one in particular,
	// unrestricted.
	principal *Principal
	// handle is the principal's Handle, worked out once.
	handle string
}

// core is what every Service made from one New shares: the store, the
// clock, the caches and the shutdown signal.
type core struct {
	store    Store
	clock    Clock
	liveness Liveness
	// workspaces resolves context paths and keys rooms (WithWorkspaces).
	workspaces Workspaces
	defaults   Policy
	// livenessPoll is how often a waiter re-checks the holder's process when
	// the Liveness cannot report exits as they happen.
	livenessPoll time.Duration
	// verdicts caches the liveness of members' processes for reads.
	verdicts verdicts

	done      chan struct{}
	closeOnce sync.Once
}

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock (tests inject a manual one to drive TTLs).
func WithClock(c Clock) Option { return func(s *Service) { s.clock = c } }

// WithLiveness sets how process liveness is judged (default: procid.Checker).
func WithLiveness(l Liveness) Option { return func(s *Service) { s.liveness = l } }

// WithDefaults sets the policy used for every field a room does not override.
// Zero fields keep DefaultPolicy's values; New rejects an invalid result.
func WithDefaults(p Policy) Option {
	return func(s *Service) { s.defaults = p.Effective(DefaultPolicy) }
}

// WithLivenessPoll sets how often waiters re-check a holder's process when
// exits cannot be watched directly, and how long a member's process found
// alive is shown so without checking it again (default 1 s).
func WithLivenessPoll(d time.Duration) Option { return func(s *Service) { s.livenessPoll = d } }

// New returns a Service over st. It fails only with invalid_argument, when
// WithDefaults gave an invalid policy.
func New(st Store, opts ...Option) (*Service, error) {
	s := &Service{core: &core{
		store:        st,
		clock:        SystemClock{},
		liveness:     procid.Checker{},
		workspaces:   LocalWorkspaces(),
		defaults:     DefaultPolicy,
		livenessPoll: time.Second,
		done:         make(chan struct{}),
	}}
	for _, o := range opts {
		o(s)
	}
	if err := s.defaults.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// Defaults returns the policy rooms use where they have no override.
func (s *Service) Defaults() Policy { return s.defaults }

// Shutdown makes every WaitForTurn in progress, and every later one, return
// at once with its current result, so a server can stop without waiting out
// long polls. It does not close the Store. It shuts down every Service
// that As made from the same one too.
func (s *Service) Shutdown() {
	s.closeOnce.Do(func() { close(s.done) })
}

// newID returns prefix followed by n random bytes in hex. Lease ids use 16
// bytes, so they are never reused; room ids 8, to stay short in tables.
func newID(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func requireRoomID(id string) error {
	if err := checkLen("room_id", id, MaxIDLen); err != nil {
		return err
	}
	if strings.TrimSpace(id) == "" {
		return invalidArg("room_id", "room_id must be non-empty").
			WithHint("use the room_id returned by join_path or list_rooms")
	}
	return nil
}

// memberOf returns the caller's member record, or unknown_member.
func (sn *snapshot) memberOf(agent string) (*Member, error) {
	if m := sn.member(agent); m != nil {
		return m, nil
	}
	return nil, sn.describe(Errorf(CodeUnknownMember, "%s is not a member of room %s", agent, sn.room.ID)).
		With("agent_id", agent).WithHint("join the room with join_path first")
}

// grant makes agent the holder: a new turn and lease, the caller's process
// facts recorded (cleared for one-shot callers), the reservation and pending
// handoff consumed. ev is the claim or takeover event to append.
func (s *Service) grant(tx Tx, sn *snapshot, c Caller, ev Event) (Event, error) {
	r := &sn.room
	m := sn.member(c.AgentID)
	m.LastSeenAt = sn.now
	m.Process = c.facts()
	m.Kind = c.kindAs(m)
	// Asking for the stick, and getting it, ends a standby.
	m.Standby = false
	if err := sn.saveMember(tx, m); err != nil {
		return Event{}, err
	}
	r.TurnID++
	ev.RoomID, ev.TurnID, ev.From, ev.CreatedAt = r.ID, r.TurnID, c.AgentID, sn.now
	ev.Ref = r.PendingHandoffSeq
	ev, err := appendEvent(tx, ev)
	if err != nil {
		return Event{}, err
	}
	r.State = StateOwned
	r.Owner = c.AgentID
	r.ReservedFor = ""
	r.PendingHandoffSeq = 0
	r.GrantSeq = ev.Seq
	r.LeaseID = newID("lease_", 16)
	r.LeaseExpiresAt = sn.now.Add(sn.policy.OwnerLeaseTTL)
	r.ClaimExpiresAt = time.Time{}
	r.SequenceIndex = m.Ordinal
	r.UpdatedAt = sn.now
	// The holder's process is the caller's now.
	sn.ownerStatus = sn.probe(m.Process)
	if ev.Type == EventTakeover {
		// Waiters watched the revoked member; they must look again. A
		// claim concerns nobody else: the claimant was the one awaited.
		tx.Ring(r.ID, "")
	}
	return ev, saveRoom(tx, *r)
}
