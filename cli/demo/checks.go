package demo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/stickhq/stick/stick"
)

// Check is one expectation of the demo and whether the run met it.
type Check struct {
	// Name is the check's stable identifier, for example "takeover".
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Detail says what was seen: the evidence, or the first problem found.
	Detail string `json:"detail"`
}

// verifier holds the room's event log, indexed, and what the run recorded.
type verifier struct {
	d        *driver
	events   []stick.Event
	grants   []stick.Event               // claims and takeovers, in log order
	byTurn   map[int64][]stick.Event     // claims and takeovers by turn
	releases map[int64][]stick.Event     // releases and passes by the turn they ended
	stepsOf  map[string]map[int64][]step // agent steps by kind and turn
	children map[string]*child           // by agent name
	notes    map[int64][]stick.Event     // notes by turn
	steps    []step
}

// verify checks the run against the room's event log, the workspace and
// what the agents reported.
func (d *driver) verify(ctx context.Context) []Check {
	var events []stick.Event
	for after := int64(0); ; {
		page, err := d.svc.RoomEvents(ctx, d.room, after, stick.MaxEventLimit)
		if err != nil {
			return []Check{{Name: "read_log", Detail: err.Error()}}
		}
		events = append(events, page.Events...)
		if !page.HasMore {
			break
		}
		after = page.Cursor
	}
	v := &verifier{d: d, events: events, byTurn: map[int64][]stick.Event{}, releases: map[int64][]stick.Event{},
		stepsOf: map[string]map[int64][]step{}, children: map[string]*child{}, notes: map[int64][]stick.Event{}, steps: d.steps}
	for _, ev := range events {
		switch ev.Type {
		case stick.EventClaim, stick.EventTakeover:
			v.grants = append(v.grants, ev)
			v.byTurn[ev.TurnID] = append(v.byTurn[ev.TurnID], ev)
		case stick.EventRelease, stick.EventPass:
			v.releases[ev.TurnID] = append(v.releases[ev.TurnID], ev)
		case stick.EventNote:
			v.notes[ev.TurnID] = append(v.notes[ev.TurnID], ev)
		}
	}
	for _, s := range d.steps {
		if v.stepsOf[s.Kind] == nil {
			v.stepsOf[s.Kind] = map[int64][]step{}
		}
		v.stepsOf[s.Kind][s.Turn] = append(v.stepsOf[s.Kind][s.Turn], s)
	}
	for _, c := range d.children {
		v.children[c.cfg.name] = c
	}
	return []Check{v.joined(), v.turns(), v.exclusive(), v.handoffs(), v.killed(), v.ownerGone(), v.takeover(), v.recovered(), v.work(), v.closed()}
}

// check builds a Check: ok with detail, or failed with the first problem.
func check(name string, problems []string, detail string) Check {
	if len(problems) > 0 {
		return Check{Name: name, Detail: problems[0]}
	}
	return Check{Name: name, OK: true, Detail: detail}
}

// grant returns the one grant event of turn, if there is exactly one.
func (v *verifier) grant(turn int64) (stick.Event, bool) {
	g := v.byTurn[turn]
	if len(g) != 1 {
		return stick.Event{}, false
	}
	return g[0], true
}

// release returns the one release event that ended turn, if there is exactly one.
func (v *verifier) release(turn int64) (stick.Event, bool) {
	r := v.releases[turn]
	if len(r) != 1 {
		return stick.Event{}, false
	}
	return r[0], true
}

// stepsOfKind returns every step of one kind, in the order they arrived.
func (v *verifier) stepsOfKind(kind string) []step {
	var out []step
	for _, s := range v.steps {
		if s.Kind == kind {
			out = append(out, s)
		}
	}
	return out
}

func (v *verifier) joined() Check {
	var joins []string
	for _, ev := range v.events {
		if ev.Type == stick.EventJoin && ev.From != director.AgentID {
			joins = append(joins, ev.From)
		}
	}
	var p []string
	if !slices.Equal(joins, roster) {
		p = append(p, fmt.Sprintf("the log shows joins of %v, want %v", joins, roster))
	}
	return check("agents_joined", p, strings.Join(roster, ", ")+" joined the room, in that order, each as its own process")
}

func (v *verifier) turns() Check {
	var p []string
	var claims, takeovers int
	for i, g := range v.grants {
		if g.TurnID != int64(i+1) {
			p = append(p, fmt.Sprintf("grant #%d of the log is for turn %d, want turn %d: turns must be granted once each, in order", g.Seq, g.TurnID, i+1))
			break
		}
		if g.Type == stick.EventTakeover {
			takeovers++
		} else {
			claims++
		}
	}
	if len(v.grants) != lastTurn {
		p = append(p, fmt.Sprintf("the log has %d grants, want %d", len(v.grants), lastTurn))
	}
	reported := append(v.stepsOfKind(stepGrant), v.stepsOfKind(stepTakeover)...)
	for _, s := range reported {
		if g, ok := v.grant(s.Turn); !ok || g.From != s.Agent {
			p = append(p, fmt.Sprintf("%s reports turn %d, but the log grants it to %q", s.Agent, s.Turn, g.From))
		}
	}
	if len(reported) != len(v.grants) {
		p = append(p, fmt.Sprintf("the agents report %d grants, the log has %d", len(reported), len(v.grants)))
	}
	return check("turns_in_order", p, fmt.Sprintf("turns 1..%d, each granted once and in order (%d claims, %d takeover)", lastTurn, claims, takeovers))
}

func (v *verifier) exclusive() Check {
	var p []string
	for _, s := range v.stepsOfKind(stepViolation) {
		p = append(p, fmt.Sprintf("%s: %s", s.Agent, s.Text))
	}
	for t := int64(1); t < lastTurn; t++ {
		g, ok1 := v.grant(t)
		next, ok2 := v.grant(t + 1)
		if !ok1 || !ok2 {
			p = append(p, fmt.Sprintf("turn %d or %d has no single grant", t, t+1))
			break
		}
		if t == v.d.heldTurn {
			if next.Type != stick.EventTakeover || next.To != g.From {
				p = append(p, fmt.Sprintf("turn %d of the killed holder was not ended by a takeover", t))
			}
			continue
		}
		r, ok := v.release(t)
		switch {
		case !ok:
			p = append(p, fmt.Sprintf("turn %d has no single release", t))
		case r.From != g.From || r.Seq < g.Seq || r.Seq > next.Seq:
			p = append(p, fmt.Sprintf("turn %d (%s, #%d) was released by %s at #%d, and turn %d began at #%d", t, g.From, g.Seq, r.From, r.Seq, t+1, next.Seq))
		}
	}
	if _, err := os.Stat(v.d.ws.path(markerFile)); !errors.Is(err, fs.ErrNotExist) {
		p = append(p, fmt.Sprintf("%s is left behind (%v)", markerFile, err))
	}
	return check("one_holder_at_a_time", p, fmt.Sprintf("each turn ended before the next began, and %s, which every holder creates with O_EXCL, never collided", markerFile))
}

func (v *verifier) handoffs() Check {
	var p []string
	received := 0
	for t := int64(1); t <= lastTurn; t++ {
		if t == v.d.heldTurn {
			continue
		}
		r, ok := v.release(t)
		if !ok || r.Handoff == nil {
			p = append(p, fmt.Sprintf("turn %d ended without a single release carrying a handoff", t))
			continue
		}
		if t == lastTurn {
			if v.d.pending != r.Seq {
				p = append(p, fmt.Sprintf("the last handoff #%d was not the pending one (#%d) when the room closed", r.Seq, v.d.pending))
			}
			continue
		}
		next, _ := v.grant(t + 1)
		if next.Ref != r.Seq {
			p = append(p, fmt.Sprintf("turn %d's grant (#%d) refers to handoff #%d, want #%d", t+1, next.Seq, next.Ref, r.Seq))
		}
		got := v.stepsOf[stepGrant][t+1]
		switch {
		case len(got) != 1 || got[0].Seq != r.Seq:
			p = append(p, fmt.Sprintf("the holder of turn %d did not report receiving handoff #%d", t+1, r.Seq))
		case got[0].Problem != "":
			p = append(p, fmt.Sprintf("handoff #%d did not match the workspace: %s", r.Seq, got[0].Problem))
		default:
			received++
		}
	}
	return check("handoffs_delivered", p, fmt.Sprintf("%d handoffs: %d arrived with the next grant and matched %s, the last one was pending when the room closed",
		received+1, received, notesFile))
}

func (v *verifier) killed() Check {
	var p []string
	c := v.children[victim]
	if c == nil || !c.killedBySIGKILL() {
		p = append(p, fmt.Sprintf("%s did not end by SIGKILL", victim))
	}
	if g, ok := v.grant(v.d.heldTurn); v.d.heldTurn == 0 || !ok || g.From != victim {
		p = append(p, fmt.Sprintf("%s did not hold turn %d in the log", victim, v.d.heldTurn))
	}
	if len(v.releases[v.d.heldTurn]) != 0 {
		p = append(p, fmt.Sprintf("turn %d was released, though its holder was killed", v.d.heldTurn))
	}
	return check("killed_mid_turn", p, fmt.Sprintf("%s held turn %d when SIGKILL ended its process; it never released it", victim, v.d.heldTurn))
}

func (v *verifier) ownerGone() Check {
	var p, seen []string
	for _, name := range roster {
		if name == victim {
			continue
		}
		d, ok := v.d.detection(name)
		switch {
		case !ok:
			p = append(p, fmt.Sprintf("%s never learned that %s was gone", name, victim))
		case d.Via == viaWait:
			seen = append(seen, fmt.Sprintf("%s %.1f ms (wait_for_turn)", name, d.AfterMS))
		default:
			seen = append(seen, fmt.Sprintf("%s %.1f ms (from the takeover in the log)", name, d.AfterMS))
		}
	}
	for _, s := range v.stepsOfKind(stepOwnerGone) {
		if s.Reason != string(stick.ReasonOwnerGone) || s.From != victim || s.Turn != v.d.heldTurn {
			p = append(p, fmt.Sprintf("%s saw takeover_available with reason %q on %s's turn %d", s.Agent, s.Reason, s.From, s.Turn))
		}
	}
	left := v.d.leaseEnd.Sub(v.d.killedAt).Round(time.Second)
	return check("owner_gone_detected", p, fmt.Sprintf("owner_gone seen after the SIGKILL by %s, with %s of lease left: nobody waited for a timeout",
		strings.Join(seen, " and "), left))
}

func (v *verifier) takeover() Check {
	var p []string
	var tk []stick.Event
	for _, ev := range v.events {
		if ev.Type == stick.EventTakeover {
			tk = append(tk, ev)
		}
	}
	if len(tk) != 1 {
		return check("takeover", []string{fmt.Sprintf("the log has %d takeovers, want 1", len(tk))}, "")
	}
	ev := tk[0]
	if ev.TurnID != v.d.heldTurn+1 || ev.To != victim || ev.Reason != string(stick.ReasonOwnerGone) || ev.From == victim || !slices.Contains(roster, ev.From) {
		p = append(p, fmt.Sprintf("takeover #%d: %s took turn %d from %q with reason %q", ev.Seq, ev.From, ev.TurnID, ev.To, ev.Reason))
	}
	got := v.stepsOf[stepTakeover][ev.TurnID]
	if len(got) != 1 || got[0].Agent != ev.From || got[0].Reason != string(stick.ReasonOwnerGone) {
		p = append(p, fmt.Sprintf("%s did not report a takeover of turn %d with reason owner_gone", ev.From, ev.TurnID))
	}
	detail := fmt.Sprintf("%s took turn %d from %s with reason owner_gone (event #%d)", ev.From, ev.TurnID, victim, ev.Seq)
	if len(got) == 1 {
		detail += ", " + ms(time.UnixMicro(got[0].At).Sub(v.d.killedAt)) + " after the SIGKILL"
	}
	for _, s := range v.stepsOfKind(stepTakeoverLost) {
		detail += fmt.Sprintf("; %s tried too and got %s", s.Agent, s.Code)
	}
	return check("takeover", p, detail)
}

func (v *verifier) recovered() Check {
	var p []string
	got := v.stepsOfKind(stepRecovered)
	if len(got) != 1 || got[0].Recovery == nil {
		return check("recovered_from_log", []string{fmt.Sprintf("%d agents reported a recovery, want 1", len(got))}, "")
	}
	s, r := got[0], got[0].Recovery
	h, _ := v.release(v.d.heldTurn - 1)
	g, _ := v.grant(v.d.heldTurn)
	var wantNotes, gotNotes []int64
	for _, n := range v.notes[v.d.heldTurn] {
		if n.From == victim {
			wantNotes = append(wantNotes, n.Seq)
		}
	}
	for _, n := range r.Notes {
		gotNotes = append(gotNotes, n.Seq)
	}
	switch {
	case r.Dead != victim || r.DeadTurn != v.d.heldTurn:
		p = append(p, fmt.Sprintf("%s recovered %s's turn %d, want %s's turn %d", s.Agent, r.Dead, r.DeadTurn, victim, v.d.heldTurn))
	case r.HandoffSeq == 0 || r.HandoffSeq != h.Seq:
		p = append(p, fmt.Sprintf("%s found handoff #%d, but %s worked from #%d", s.Agent, r.HandoffSeq, victim, h.Seq))
	case r.GrantSeq == 0 || r.GrantSeq != g.Seq:
		p = append(p, fmt.Sprintf("%s found grant #%d, want #%d", s.Agent, r.GrantSeq, g.Seq))
	case len(wantNotes) == 0 || !slices.Equal(gotNotes, wantNotes):
		p = append(p, fmt.Sprintf("%s found notes %v of %s, the log has %v", s.Agent, gotNotes, victim, wantNotes))
	case r.Marker != marker(victim, v.d.heldTurn):
		p = append(p, fmt.Sprintf("%s found %s saying %q", s.Agent, markerFile, r.Marker))
	}
	return check("recovered_from_log", p, fmt.Sprintf("%s found the handoff %s worked from (#%d), its grant (#%d) and its note (#%d) in the log, and cleared the %s it left",
		s.Agent, victim, r.HandoffSeq, r.GrantSeq, last(gotNotes), markerFile))
}

func (v *verifier) work() Check {
	var p []string
	lines, err := v.d.ws.readLines()
	if err != nil {
		p = append(p, err.Error())
	}
	var want []string
	for _, g := range v.grants {
		if g.TurnID != v.d.heldTurn {
			want = append(want, fmt.Sprintf("%d. %s wrote this in turn %d", len(want)+1, g.From, g.TurnID))
		}
	}
	if len(lines) != len(want) {
		p = append(p, fmt.Sprintf("%s has %d lines, want %d", notesFile, len(lines), len(want)))
	}
	for i := range min(len(lines), len(want)) {
		if !strings.HasPrefix(lines[i], want[i]) {
			p = append(p, fmt.Sprintf("%s:%d is %q, want %q", notesFile, i+1, lines[i], want[i]))
			break
		}
	}
	return check("work_complete", p, fmt.Sprintf("%s has %d lines, one per finished turn, in turn order; turn %d's line was written by the member that took over",
		notesFile, len(lines), v.d.heldTurn))
}

func (v *verifier) closed() Check {
	var p []string
	var survivors []string
	for _, ev := range v.events {
		if ev.Type == stick.EventClose && (ev.Seq != v.d.closeSeq || ev.From != director.AgentID || ev.Text == "") {
			p = append(p, fmt.Sprintf("unexpected close event #%d by %s", ev.Seq, ev.From))
		}
	}
	if v.d.closeSeq == 0 {
		p = append(p, "the room was not closed")
	}
	for _, name := range roster {
		if name == victim {
			continue
		}
		survivors = append(survivors, name)
		if c := v.children[name]; c == nil || !c.closed || c.state == nil || !c.state.Success() {
			p = append(p, fmt.Sprintf("%s did not see the room close and exit with status 0", name))
		}
	}
	return check("closed_cleanly", p, fmt.Sprintf("the room closed with a conclusion; %s saw it and exited with status 0", strings.Join(survivors, " and ")))
}

// last returns the last element of s, 0 when it is empty.
func last(s []int64) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

// ms formats a duration in milliseconds with one decimal.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}
