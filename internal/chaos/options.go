package chaos

import (
	"fmt"
	"io"
	"time"

	"github.com/stickhq/stick/internal/storeurl"
	"github.com/stickhq/stick/stick"
)

// Options configures one soak.
type Options struct {
	// Duration is how long the driver kills and restarts agents; the run
	// takes a few seconds more to start the agents, see the room recover
	// from the final kill, stop and check. Zero means DefaultDuration.
	Duration time.Duration
	// Procs is how many agent processes run at once, at least 2 so that
	// someone can take over. Zero means DefaultProcs.
	Procs int
	// Seed drives every random choice of the driver and, through seeds
	// derived from it, of the agents.
	Seed int64
	// Dir is the parent of the soak's data directory, repository and check
	// file; it must not exist or be empty. Empty means a temporary
	// directory, removed at the end unless the soak failed.
	Dir string
	// Log receives progress lines; nil means none.
	Log io.Writer
	// Hub runs the soak over a hub: one 'stick serve' process owns the
	// database, every agent reaches it through a 'stick mcp --server'
	// proxy process of its own, and the driver also SIGKILLs proxies and
	// the hub (which it starts again on the same address and database).
	Hub bool
	// Database, when set, is the URL of a PostgreSQL server: the soak
	// runs on an empty database it creates there (the URL's user needs
	// the CREATEDB privilege) and drops at the end, or keeps when the soak
	// failed. Empty means SQLite in the soak's directory.
	Database string
}

// Defaults and bounds of Options.
const (
	// DefaultDuration is the soak CI runs: one minute.
	DefaultDuration = 60 * time.Second
	// DefaultProcs is the number of agents CI runs.
	DefaultProcs = 12
	// MaxProcs bounds Procs, so a typo cannot fork-bomb the machine.
	MaxProcs = 64
	// MinDuration is the shortest soak: a few kills need a few seconds.
	MinDuration = time.Second
)

// roomPolicy is the room's policy: timeouts short enough that a stalled
// holder or a dawdling recipient is taken over within seconds.
var roomPolicy = stick.Policy{
	OwnerLeaseTTL:     2 * time.Second,
	ClaimTTL:          1500 * time.Millisecond,
	HeartbeatInterval: 250 * time.Millisecond,
	PresenceTTL:       3 * time.Second,
	WaitMaxWait:       time.Second,
}

// hubPolicy is the room's policy over a hub: roomPolicy with a proxy
// grace (how long a member whose proxy's liveness stream dropped stays
// alive) as short as a hub restart allows, since a proxy tries to connect
// again at most 2 s apart (see package proxy); and a lease longer than
// that grace, so that a holder whose proxy was killed is judged gone by
// the grace before its lease runs out, and the soak checks that it is.
var hubPolicy = func() stick.Policy {
	p := roomPolicy
	p.OwnerLeaseTTL = 4 * time.Second
	p.ProxyGrace = 3 * time.Second
	return p
}()

// policyFor is the room's policy of a soak over a hub or not.
func policyFor(hub bool) stick.Policy {
	if hub {
		return hubPolicy
	}
	return roomPolicy
}

// The driver's timing.
const (
	// recoveryMargin is added to the longer of the lease and claim TTLs to
	// give the takeover window: the time within which some live process
	// must hold the stick after a kill.
	recoveryMargin = 2 * time.Second
	// minKillGap and maxKillGap bound the pause between two kills.
	minKillGap = 250 * time.Millisecond
	maxKillGap = 750 * time.Millisecond
	// pollEvery is how often the driver reads the room's state.
	pollEvery = 20 * time.Millisecond
	// sectionEvery and historyEvery are how often the check file and the
	// event log are checked during the run.
	sectionEvery = time.Second
	historyEvery = 2 * time.Second
	// settle is how long the soak goes on after the room recovered from
	// the final kill, so the recovered room is seen to keep working.
	settle = 500 * time.Millisecond
	// readyTimeout bounds the start of the first agents; stopTimeout the
	// time agents have to finish their turn and exit when told to stop.
	readyTimeout = time.Minute
	stopTimeout  = 10 * time.Second
	// slowRecovery is the recovery time above which the soak logs what
	// the kill hit and what the room looked like.
	slowRecovery = 300 * time.Millisecond
	// progressEvery is how often a progress line is logged.
	progressEvery = 10 * time.Second
)

// takeoverWindow is the longest a room with policy p may go without a
// live holder after a kill.
func takeoverWindow(p stick.Policy) time.Duration {
	return max(p.OwnerLeaseTTL, p.ClaimTTL) + recoveryMargin
}

// normalize fills in defaults and rejects values the soak cannot run with.
func (o Options) normalize() (Options, error) {
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.Procs == 0 {
		o.Procs = DefaultProcs
	}
	if o.Duration < MinDuration {
		return o, fmt.Errorf("chaos: --duration %v is too short: at least %v", o.Duration, MinDuration)
	}
	if o.Procs < 2 || o.Procs > MaxProcs {
		return o, fmt.Errorf("chaos: --procs %d is out of range: between 2 and %d", o.Procs, MaxProcs)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o, nil
}

// reproduce is the command that runs the same soak again.
func (o Options) reproduce() string {
	hub := ""
	if o.Hub {
		hub = " --hub"
	}
	db := ""
	if o.Database != "" {
		db = " --database " + storeurl.Redact(o.Database)
	}
	return fmt.Sprintf("stickbench chaos%s%s --duration %v --procs %d --seed %d", hub, db, o.Duration, o.Procs, o.Seed)
}
