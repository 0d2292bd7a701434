package chaos

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Report is what a soak did and found. The counts show that the soak
// really exercised what it checks (kills, takeovers, handoffs), so a green
// run cannot be vacuous.
type Report struct {
	// Seed, Procs, Duration and Hub are the soak's options.
	Seed     int64
	Procs    int
	Duration time.Duration
	Hub      bool
	// Elapsed is the wall time of the whole run, start and checks included.
	Elapsed time.Duration

	// Turns is the last turn id granted; Grants counts grant events
	// (Claims plus Takeovers), one per turn when the log is sound.
	Turns            int64
	Grants           int
	Claims           int
	Takeovers        int
	TakeoverReasons  map[string]int
	Releases, Passes int

	// HandoffsDelivered counts handoffs claimed by the next grantee with
	// the claim event pointing at them; HandoffsAcknowledged those of them
	// whose token the grantee wrote in the check file (the others' grantee
	// was killed first); HandoffsToTakeover those pending when a takeover
	// revoked the recipient; HandoffsPending is 1 when the last handoff was
	// still waiting at the end.
	HandoffsDelivered    int
	HandoffsAcknowledged int
	HandoffsToTakeover   int
	HandoffsPending      int

	// Kills counts SIGKILLs (HolderKills of them aimed at the holder,
	// RecipientKills at the reserved recipient), Restarts the agents
	// started in their place. Over a hub, ProxyKills of them hit an
	// agent's proxy instead of the agent, and HubKills the hub, which was
	// down for at most MaxHubDown before it listened again.
	Kills, HolderKills, RecipientKills, Restarts int
	ProxyKills, HubKills                         int
	MaxHubDown                                   time.Duration
	// Recoveries counts kills after which the room was seen held again;
	// MaxRecovery is the longest such wait, FinalRecovery the one after the
	// last kill (of the holder), RecoveryWindow the limit for all of them.
	// Times are measured by polling every 20 ms.
	Recoveries     int
	MaxRecovery    time.Duration
	FinalRecovery  time.Duration
	RecoveryWindow time.Duration

	// Stalls counts turns held without heartbeats until the lease ran out,
	// Dawdles waits skipped for longer than the claim TTL, LostLeases owner
	// calls that found the lease taken over after it expired.
	Stalls, Dawdles, LostLeases int
	// ErrorCodes counts every error code the agents saw, expected ones
	// included (a takeover that lost a race, a pass to a member that died).
	ErrorCodes map[string]int
	// LostAnswers counts, by call, the calls whose answer a restart of the
	// hub lost and whose outcome the agent found in the room's log.
	LostAnswers map[string]int

	// SectionLines is the number of check-file lines checked;
	// SectionChecks and HistoryChecks how often the check file and the
	// event log were checked during the run.
	SectionLines  int
	SectionChecks int
	HistoryChecks int
	// Events is the length of the room's event log.
	Events int
	// Integrity is the findings of the database's integrity check (store.Reader.Integrity).
	Integrity string

	// Violations lists every invariant the soak found broken; Dir is the
	// directory kept for inspection when there is one.
	Violations []string
	Dir        string
}

// report assembles the Report from what the driver counted.
func (d *driver) report() Report {
	r := d.rep
	r.Seed, r.Procs, r.Duration, r.Hub, r.RecoveryWindow = d.o.Seed, d.o.Procs, d.o.Duration, d.o.Hub, d.window
	r.MaxHubDown = d.hub.maxDown
	s := d.stats
	r.Turns, r.Grants, r.Claims, r.Takeovers = s.lastTurn, s.grants, s.claims, s.takeovers
	r.TakeoverReasons = maps.Clone(s.reasons)
	r.Releases, r.Passes = s.releases, s.passes
	r.HandoffsDelivered, r.HandoffsAcknowledged, r.HandoffsToTakeover, r.HandoffsPending = s.delivered, s.acknowledged, s.takenOut, s.pending
	r.SectionLines, r.SectionChecks, r.HistoryChecks, r.Events = d.sec.lines, d.sectionChecks, d.history, len(d.events)
	d.mu.Lock()
	defer d.mu.Unlock()
	r.Stalls, r.Dawdles, r.LostLeases = d.tally.stalls, d.tally.dawdles, d.tally.lost
	r.ErrorCodes = maps.Clone(d.tally.errors)
	r.LostAnswers = maps.Clone(d.tally.found)
	r.Violations = slices.Clone(d.violations)
	return r
}

// String is a short human summary of the report.
func (r Report) String() string {
	var b strings.Builder
	verdict := "ok"
	if len(r.Violations) > 0 {
		verdict = fmt.Sprintf("FAILED, %d violation(s)", len(r.Violations))
	}
	ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	over := ""
	if r.Hub {
		over = " through their proxies to a hub"
	}
	fmt.Fprintf(&b, "chaos soak, seed %d: %v with %d agent processes%s, %v in all: %s\n",
		r.Seed, r.Duration, r.Procs, over, r.Elapsed.Round(100*time.Millisecond), verdict)
	reasons := ""
	if r.Takeovers > 0 {
		reasons = counts(": ", r.TakeoverReasons)
	}
	fmt.Fprintf(&b, "turns %d: %d grants (%d claims, %d takeovers%s), %d releases, %d passes\n",
		r.Turns, r.Grants, r.Claims, r.Takeovers, reasons, r.Releases, r.Passes)
	fmt.Fprintf(&b, "handoffs: %d delivered to the next grantee (%d acknowledged in the check file), %d seen by a taker-over, %d pending at the end\n",
		r.HandoffsDelivered, r.HandoffsAcknowledged, r.HandoffsToTakeover, r.HandoffsPending)
	if r.Hub {
		fmt.Fprintf(&b, "kills %d: %d agents, %d proxies, %d of the hub (down %v at most)\n",
			r.Kills, r.Kills-r.ProxyKills-r.HubKills, r.ProxyKills, r.HubKills, ms(r.MaxHubDown))
		fmt.Fprintf(&b, "answers lost to a restart of the hub, found in the log%s\n", counts(": ", r.LostAnswers))
	}
	fmt.Fprintf(&b, "kills %d (%d holders, %d reserved recipients, %d others), restarts %d; recovery: longest %v, after the last kill %v (window %v)\n",
		r.Kills, r.HolderKills, r.RecipientKills, r.Kills-r.HolderKills-r.RecipientKills, r.Restarts,
		ms(r.MaxRecovery), ms(r.FinalRecovery), r.RecoveryWindow)
	fmt.Fprintf(&b, "agents: %d stalls, %d dawdles, %d leases lost after expiry; error codes seen%s; db_busy %d\n",
		r.Stalls, r.Dawdles, r.LostLeases, counts(": ", r.ErrorCodes), r.ErrorCodes["db_busy"])
	fmt.Fprintf(&b, "checks: %d check-file lines (%d checks during the run), %d events (%d checks during the run), integrity_check %s",
		r.SectionLines, r.SectionChecks, r.Events, r.HistoryChecks, r.Integrity)
	return b.String()
}

// counts renders a count map as "prefix a 1, b 2" in key order, or
// "prefix none" when it is empty.
func counts(prefix string, m map[string]int) string {
	if len(m) == 0 {
		return prefix + "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return prefix + strings.Join(parts, ", ")
}
