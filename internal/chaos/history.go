package chaos

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// tokenPrefix starts the status of every handoff an agent writes; the
// token after it is unique to the turn that wrote it.
const tokenPrefix = "chaos handoff "

// handoffToken returns the token of a handoff's status, and whether it has one.
func handoffToken(h *stick.Handoff) (string, bool) {
	if h == nil {
		return "", false
	}
	tok, ok := strings.CutPrefix(h.Status, tokenPrefix)
	return tok, ok && tok != "" && !strings.ContainsAny(tok, " \t\n")
}

// handed is a release or pass an agent saw succeed.
type handed struct {
	agent string
	seq   int64
	typ   string
	token string
}

// historyInput is what checkHistory needs.
type historyInput struct {
	// events is the room's log, oldest first (all of it, or a prefix during the run).
	events []stick.Event
	// sec is the check file read so far (its kills during the run; at the
	// end, also its enters and exits for the cross-check).
	sec *sectionChecker
	// stopSeq is the newest event before the driver told the agents to
	// stop: later takeovers may find stopped agents gone. 0 while running.
	stopSeq int64
	// pending is the room's pending handoff at the end, 0 for none.
	pending int64
	// handed lists the releases and passes the agents reported.
	handed []handed
	// final says the log and the check file are complete: the checks that
	// need the end (pending handoff, cross-checks) run too.
	final bool
	// grace is the room's proxy grace over a hub (see
	// sectionChecker.knownGone).
	grace time.Duration
}

// historyStats counts what the log shows.
type historyStats struct {
	lastTurn                          int64
	grants, claims, takeovers         int
	reasons                           map[string]int
	releases, passes                  int
	delivered, acknowledged, takenOut int
	pending                           int
}

// grantFacts is one grant and what its grantee should have received.
type grantFacts struct {
	ev stick.Event
	// token is the handoff token the grantee must have written in its
	// enter line: the pending handoff's for a claim, the newest handoff's
	// for a takeover (TakeoverResult.RecentHandoff); noToken for none.
	token string
	// handoff is the pending handoff the grant consumed, 0 for none.
	handoff int64
}

// historyWalk is checkHistory's state while it walks the log.
type historyWalk struct {
	in         historyInput
	stats      historyStats
	violations []string
	turn       int64
	holder     string
	pending    *stick.Event
	last       *stick.Event
	grants     map[int64]grantFacts
	handoffs   map[int64]stick.Event
	tokens     map[string]int64
}

// checkHistory walks a room's event log and returns what it shows and
// every violation of the protocol's guarantees in it:
//
//   - grant events (claim, takeover) carry turn ids 1, 2, 3, ... with one
//     grant each;
//   - a claim happens only when nobody holds the stick; a takeover revokes
//     exactly the holder or the reserved recipient, for a reason that fits;
//     a takeover because a process is gone names an agent the driver
//     killed (or stopped, at the end), and one after the driver reaped the
//     revoked agent gives that as the reason, not a timeout;
//   - a release or pass comes from the holder of the current turn and
//     carries a unique token;
//   - every handoff is consumed by the next grant: a claim by the reserved
//     recipient (anyone, when the room was left idle) with the claim
//     pointing at it, or a takeover of the recipient pointing at it;
//     only the last may still be pending at the end, and then the room
//     says so.
//
// With final set it also cross-checks the check file: every grant was
// entered by its grantee with the right token (the handoff delivered to
// exactly that grantee, or seen by the taker-over) unless the grantee was
// killed first; every enter was granted; every handoff was written after
// its author left its critical section; every handoff an agent reported is
// in the log.
func checkHistory(in historyInput) (historyStats, []string) {
	h := &historyWalk{
		in: in, grants: map[int64]grantFacts{}, handoffs: map[int64]stick.Event{}, tokens: map[string]int64{},
	}
	h.stats.reasons = map[string]int{}
	for _, ev := range in.events {
		switch ev.Type {
		case stick.EventClaim, stick.EventTakeover:
			h.grant(ev)
		case stick.EventRelease, stick.EventPass:
			h.handOn(ev)
		case stick.EventClose:
			h.fail("event #%d closed the room; nobody in the soak closes it", ev.Seq)
		}
	}
	h.stats.lastTurn = h.turn
	if in.final {
		h.finish()
	}
	return h.stats, h.violations
}

func (h *historyWalk) fail(format string, args ...any) {
	h.violations = append(h.violations, "event log: "+fmt.Sprintf(format, args...))
}

func (h *historyWalk) grant(ev stick.Event) {
	h.stats.grants++
	switch {
	case ev.TurnID <= h.turn:
		first := "another grant"
		if g, ok := h.grants[ev.TurnID]; ok {
			first = fmt.Sprintf("event #%d", g.ev.Seq)
		}
		h.fail("event #%d grants turn %d to %s again: %s granted it already", ev.Seq, ev.TurnID, ev.From, first)
	case ev.TurnID > h.turn+1:
		h.fail("event #%d grants turn %d to %s, but turn %d was never granted", ev.Seq, ev.TurnID, ev.From, h.turn+1)
	}
	g := grantFacts{ev: ev, token: noToken}
	if ev.Type == stick.EventClaim {
		h.claim(ev, &g)
	} else {
		h.takeover(ev, &g)
	}
	if _, dup := h.grants[ev.TurnID]; !dup {
		h.grants[ev.TurnID] = g
	}
	h.turn = max(h.turn, ev.TurnID)
	h.holder, h.pending = ev.From, nil
}

func (h *historyWalk) claim(ev stick.Event, g *grantFacts) {
	h.stats.claims++
	if h.holder != "" {
		h.fail("event #%d: %s claims turn %d while %s still holds turn %d (no release, pass or takeover in between): two holders at once",
			ev.Seq, ev.From, ev.TurnID, h.holder, h.turn)
	}
	p := h.pending
	if p == nil {
		if ev.Ref != 0 {
			h.fail("claim #%d of turn %d points at handoff #%d, but no handoff was pending", ev.Seq, ev.TurnID, ev.Ref)
		}
		return
	}
	if ev.Ref != p.Seq {
		h.fail("lost handoff: claim #%d of turn %d by %s points at #%d, but the pending handoff was #%d (%s from %s)",
			ev.Seq, ev.TurnID, ev.From, ev.Ref, p.Seq, p.Type, p.From)
	}
	if p.To != "" && ev.From != p.To {
		h.fail("handoff #%d reserved the stick for %s, but %s claimed turn %d (event #%d)", p.Seq, p.To, ev.From, ev.TurnID, ev.Seq)
	}
	want := stick.GrantOpenClaim
	switch {
	case p.Type == stick.EventPass:
		want = stick.GrantDirectPass
	case p.To != "":
		want = stick.GrantSequence
	}
	if ev.Reason != string(want) {
		h.fail("claim #%d after %s #%d has reason %q, want %q", ev.Seq, p.Type, p.Seq, ev.Reason, want)
	}
	g.token, _ = handoffToken(p.Handoff)
	g.handoff = p.Seq
	h.stats.delivered++
}

func (h *historyWalk) takeover(ev stick.Event, g *grantFacts) {
	h.stats.takeovers++
	data, ok := ev.TakeoverData()
	if !ok {
		h.fail("takeover #%d has unreadable data %q", ev.Seq, ev.Data)
	}
	why := data.TakeoverReason
	h.stats.reasons[string(why)]++
	switch p := h.pending; {
	case p != nil:
		if why != stick.ReasonRecipientGone && why != stick.ReasonClaimTimeout {
			h.fail("takeover #%d of a reserved stick gives reason %q", ev.Seq, why)
		}
		if p.To == "" || ev.To != p.To {
			h.fail("takeover #%d revoked %q, but handoff #%d reserved the stick for %q", ev.Seq, ev.To, p.Seq, p.To)
		}
		if ev.Ref != p.Seq {
			h.fail("lost handoff: takeover #%d of turn %d points at #%d, but the pending handoff was #%d (%s from %s)",
				ev.Seq, ev.TurnID, ev.Ref, p.Seq, p.Type, p.From)
		}
		g.handoff = p.Seq
		h.stats.takenOut++
	case h.holder != "":
		if why != stick.ReasonOwnerGone && why != stick.ReasonOwnerTimeout {
			h.fail("takeover #%d of a held stick gives reason %q", ev.Seq, why)
		}
		if ev.To != h.holder {
			h.fail("takeover #%d revoked %q, but %s held turn %d", ev.Seq, ev.To, h.holder, h.turn)
		}
		if ev.Ref != 0 {
			h.fail("takeover #%d of a held stick points at handoff #%d", ev.Seq, ev.Ref)
		}
	default:
		h.fail("takeover #%d of turn %d while nobody held the stick and nobody was reserved", ev.Seq, ev.TurnID)
	}
	h.checkLiveness(ev, why)
	if h.last != nil {
		g.token, _ = handoffToken(h.last.Handoff)
	}
}

// clockSlack absorbs the store's millisecond timestamps and small clock
// steps when a takeover's time is compared with a kill's.
const clockSlack = 50 * time.Millisecond

// checkLiveness checks a takeover's reason against the kills: a process
// said to be gone was killed (or stopped, at the end), and one that was
// killed and reaped before the takeover must have been seen gone, not
// merely timed out (the library reads its clock before it probes), once
// the room could know it (see sectionChecker.knownGone).
func (h *historyWalk) checkLiveness(ev stick.Event, why stick.TakeoverReason) {
	sec := h.in.sec
	if sec == nil {
		return
	}
	gone := why == stick.ReasonOwnerGone || why == stick.ReasonRecipientGone
	stopped := h.in.stopSeq > 0 && ev.Seq > h.in.stopSeq
	if gone && !sec.killed(ev.To) && !stopped {
		h.fail("takeover #%d says the process of %s is gone (%s), but the driver never killed it", ev.Seq, ev.To, why)
	}
	if known, ok := sec.knownGone(ev.To, ev.CreatedAt, h.in.grace); ok && !gone && ev.CreatedAt.After(known.Add(clockSlack)) {
		reaped, since := sec.reapedAt[ev.To], ""
		if !known.Equal(reaped) {
			since = ", known gone since " + known.Format("15:04:05.000")
		}
		h.fail("takeover #%d at %s revoked %s for %s, but %s was killed and reaped at %s%s: its death went unnoticed",
			ev.Seq, ev.CreatedAt.Format("15:04:05.000"), ev.To, why, ev.To, reaped.Format("15:04:05.000"), since)
	}
}

func (h *historyWalk) handOn(ev stick.Event) {
	if ev.Type == stick.EventPass {
		h.stats.passes++
		if ev.To == "" {
			h.fail("pass #%d by %s names no recipient", ev.Seq, ev.From)
		}
	} else {
		h.stats.releases++
	}
	switch {
	case h.holder == "":
		h.fail("%s #%d by %s in turn %d, but nobody held the stick", ev.Type, ev.Seq, ev.From, ev.TurnID)
	case ev.From != h.holder || ev.TurnID != h.turn:
		h.fail("%s #%d by %s for turn %d, but %s holds turn %d", ev.Type, ev.Seq, ev.From, ev.TurnID, h.holder, h.turn)
	}
	tok, ok := handoffToken(ev.Handoff)
	if !ok {
		h.fail("%s #%d by %s carries no handoff token: %+v", ev.Type, ev.Seq, ev.From, ev.Handoff)
	} else if prev, dup := h.tokens[tok]; dup {
		h.fail("handoff token %s is in events #%d and #%d", tok, prev, ev.Seq)
	} else {
		h.tokens[tok] = ev.Seq
	}
	h.handoffs[ev.Seq] = ev
	h.pending, h.last, h.holder = &ev, &ev, ""
}

// finish runs the checks that need the complete log and check file.
func (h *historyWalk) finish() {
	switch p := h.pending; {
	case p != nil && h.in.pending != p.Seq:
		h.fail("handoff #%d (%s from %s) was never delivered, and the room's pending handoff is #%d", p.Seq, p.Type, p.From, h.in.pending)
	case p != nil:
		h.stats.pending = 1
	case h.in.pending != 0:
		h.fail("the room's pending handoff is #%d, but the log consumed every handoff", h.in.pending)
	}
	for _, r := range h.in.handed {
		ev, ok := h.handoffs[r.seq]
		if tok, _ := handoffToken(ev.Handoff); !ok || ev.From != r.agent || string(ev.Type) != r.typ || tok != r.token {
			h.fail("%s saw its %s with token %s commit as event #%d, but the log has %s", r.agent, r.typ, r.token, r.seq, describeEvent(ev, ok))
		}
	}
	sec := h.in.sec
	if sec == nil {
		return
	}
	for turn := int64(1); turn <= h.turn; turn++ {
		g, ok := h.grants[turn]
		if !ok {
			continue
		}
		h.crossCheck(g, sec)
	}
	turns := make([]int64, 0, len(sec.enters))
	for t := range sec.enters {
		turns = append(turns, t)
	}
	slices.Sort(turns)
	for _, t := range turns {
		if _, ok := h.grants[t]; !ok {
			e := sec.enters[t]
			h.fail("check file line %d: %s entered turn %d, which the log never granted", e.line, e.agent, t)
		}
	}
	seqs := make([]int64, 0, len(h.handoffs))
	for s := range h.handoffs {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	for _, s := range seqs {
		ev := h.handoffs[s]
		if sec.exits[ev.TurnID] != ev.From {
			h.fail("%s handed on turn %d (%s #%d) without leaving its critical section first", ev.From, ev.TurnID, ev.Type, ev.Seq)
		}
	}
}

// crossCheck compares one grant with the grantee's enter line.
func (h *historyWalk) crossCheck(g grantFacts, sec *sectionChecker) {
	ev := g.ev
	e, ok := sec.enters[ev.TurnID]
	switch {
	case !ok:
		if !sec.killed(ev.From) {
			h.fail("%s #%d granted turn %d to %s, who never entered its critical section and was not killed", ev.Type, ev.Seq, ev.TurnID, ev.From)
		}
	case e.agent != ev.From:
		h.fail("%s #%d granted turn %d to %s, but %s entered it (check file line %d)", ev.Type, ev.Seq, ev.TurnID, ev.From, e.agent, e.line)
	case e.how != string(ev.Type):
		h.fail("%s #%d granted turn %d, but %s entered it by %s (check file line %d)", ev.Type, ev.Seq, ev.TurnID, e.agent, e.how, e.line)
	case e.token != g.token && ev.Type == stick.EventClaim:
		h.fail("lost handoff: %s claimed turn %d (event #%d) and received handoff %s, but the pending handoff was %s (check file line %d)",
			e.agent, ev.TurnID, ev.Seq, e.token, g.token, e.line)
	case e.token != g.token:
		h.fail("lost handoff: %s took over turn %d (event #%d) and saw %s as the newest handoff, but the log's newest was %s (check file line %d)",
			e.agent, ev.TurnID, ev.Seq, e.token, g.token, e.line)
	case ev.Type == stick.EventClaim && g.handoff != 0:
		h.stats.acknowledged++
	}
}
