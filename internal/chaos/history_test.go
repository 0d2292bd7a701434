package chaos

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

// scene is a hand-made soak: a room's event log, the check file and the
// handoffs the agents reported, sound until a test breaks it.
type scene struct {
	events []stick.Event
	lines  []string
	handed []handed
	stop   int64
	// grace is the room's proxy grace, over a hub.
	grace time.Duration
}

func (s *scene) add(ev stick.Event) {
	ev.Seq = int64(len(s.events) + 1)
	ev.CreatedAt = time.Unix(1e9, 0).Add(time.Duration(ev.Seq) * time.Millisecond)
	s.events = append(s.events, ev)
}

func tokenHandoff(tok string) *stick.Handoff {
	return &stick.Handoff{Status: tokenPrefix + tok, NextAction: "go on"}
}

func takeoverData(r stick.TakeoverReason) json.RawMessage {
	b, _ := json.Marshal(map[string]stick.TakeoverReason{"takeover_reason": r})
	return b
}

// soundScene: a claims, releases to b; b passes to c; c is killed while
// holding and a takes over; a releases to b, b is killed while reserved
// and d takes over; d releases into an idle room, pending at the end.
func soundScene() *scene {
	s := &scene{}
	for _, id := range []string{"a", "b", "c", "d"} {
		s.add(stick.Event{Type: stick.EventJoin, From: id})
	}
	s.add(stick.Event{Type: stick.EventClaim, TurnID: 1, From: "a", Reason: "open_claim"})                                               // 5
	s.add(stick.Event{Type: stick.EventRelease, TurnID: 1, From: "a", To: "b", Handoff: tokenHandoff("tA")})                             // 6
	s.add(stick.Event{Type: stick.EventClaim, TurnID: 2, From: "b", Reason: "sequence", Ref: 6})                                         // 7
	s.add(stick.Event{Type: stick.EventPass, TurnID: 2, From: "b", To: "c", Handoff: tokenHandoff("tB")})                                // 8
	s.add(stick.Event{Type: stick.EventClaim, TurnID: 3, From: "c", Reason: "direct_pass", Ref: 8})                                      // 9
	s.add(stick.Event{Type: stick.EventTakeover, TurnID: 4, From: "a", To: "c", Data: takeoverData(stick.ReasonOwnerGone)})              // 10
	s.add(stick.Event{Type: stick.EventRelease, TurnID: 4, From: "a", To: "b", Handoff: tokenHandoff("tC")})                             // 11
	s.add(stick.Event{Type: stick.EventTakeover, TurnID: 5, From: "d", To: "b", Ref: 11, Data: takeoverData(stick.ReasonRecipientGone)}) // 12
	s.add(stick.Event{Type: stick.EventRelease, TurnID: 5, From: "d", Handoff: tokenHandoff("tD")})                                      // 13
	s.lines = []string{
		"enter 1 a 10 claim -", "work 1 a 10 1", "exit 1 a 10 done",
		"enter 2 b 11 claim tA", "exit 2 b 11 done",
		"enter 3 c 12 claim tB", "work 3 c 12 1", "kill c 12", "killed c 12 999999999900",
		"enter 4 a 10 takeover tB", "exit 4 a 10 done",
		"kill b 11", "killed b 11 999999999900",
		"enter 5 d 13 takeover tC", "exit 5 d 13 done",
	}
	s.handed = []handed{
		{agent: "a", seq: 6, typ: "release", token: "tA"}, {agent: "b", seq: 8, typ: "pass", token: "tB"},
		{agent: "a", seq: 11, typ: "release", token: "tC"}, {agent: "d", seq: 13, typ: "release", token: "tD"},
	}
	return s
}

// check runs the final history check with pending as the room's pending handoff.
func (s *scene) check(pending int64) (historyStats, []string) {
	sec := checkSection(s.lines...)
	v := append([]string(nil), sec.violations...)
	stats, hv := checkHistory(historyInput{events: s.events, sec: sec, stopSeq: s.stop, pending: pending, handed: s.handed, final: true, grace: s.grace})
	return stats, append(v, hv...)
}

func TestHistorySound(t *testing.T) {
	stats, v := soundScene().check(13)
	wantNoViolation(t, v)
	want := historyStats{lastTurn: 5, grants: 5, claims: 3, takeovers: 2, releases: 3, passes: 1,
		delivered: 2, acknowledged: 2, takenOut: 1, pending: 1,
		reasons: map[string]int{"owner_gone": 1, "recipient_gone": 1}}
	if !reflect.DeepEqual(stats, want) {
		t.Fatalf("stats %+v, want %+v", stats, want)
	}
}

func TestHistoryDuplicateTurn(t *testing.T) {
	s := soundScene()
	s.events[9].TurnID = 3 // a's takeover grants turn 3 again
	_, v := s.check(13)
	if len(v) == 0 || !strings.Contains(v[0], "event #10 grants turn 3 to a again: event #9 granted it already") {
		t.Fatalf("duplicated turn not reported: %q", v)
	}
	s = soundScene()
	s.events[8].TurnID = 4 // turn 3 is skipped, and then turn 4 comes twice
	_, v = s.check(13)
	if len(v) < 2 || !strings.Contains(v[0], "turn 3 was never granted") || !strings.Contains(v[1], "grants turn 4 to a again") {
		t.Fatalf("skipped and repeated turns not reported: %q", v)
	}
}

func TestHistoryLostHandoff(t *testing.T) {
	// The log loses it: b's claim does not point at a's release.
	s := soundScene()
	s.events[6].Ref = 0
	_, v := s.check(13)
	wantViolation(t, v, "lost handoff: claim #7 of turn 2 by b points at #0, but the pending handoff was #6")

	// The grantee never got it: b's wait returned another handoff.
	s = soundScene()
	s.lines[3] = "enter 2 b 11 claim tX"
	_, v = s.check(13)
	wantViolation(t, v, "lost handoff: b claimed turn 2 (event #7) and received handoff tX, but the pending handoff was tA")

	// The taker-over did not see the pending handoff as the newest one.
	s = soundScene()
	s.lines[13] = "enter 5 d 13 takeover tB"
	_, v = s.check(13)
	wantViolation(t, v, "d took over turn 5 (event #12) and saw tB as the newest handoff, but the log's newest was tC")

	// The last handoff vanished: neither delivered nor pending.
	_, v = soundScene().check(0)
	wantViolation(t, v, "handoff #13 (release from d) was never delivered")

	// A release an agent saw commit is not in the log.
	s = soundScene()
	s.handed = append(s.handed, handed{agent: "d", seq: 99, typ: "release", token: "tE"})
	_, v = s.check(13)
	wantViolation(t, v, "d saw its release with token tE commit as event #99, but the log has nothing")

	// A reservation for b claimed by someone else.
	s = soundScene()
	s.events[6].From = "d"
	s.lines[3], s.lines[4] = "enter 2 d 13 claim tA", "exit 2 d 13 done"
	s.handed[1].agent, s.events[7].From = "d", "d"
	_, v = s.check(13)
	wantViolation(t, v, "handoff #6 reserved the stick for b, but d claimed turn 2")
}

func TestHistoryTwoHolders(t *testing.T) {
	// b claims while a still holds turn 1: no release in between.
	s := soundScene()
	s.events[5] = stick.Event{Seq: 6, Type: stick.EventNote, From: "a"}
	s.handed = s.handed[1:]
	s.lines[3] = "enter 2 b 11 claim -"
	s.events[6].Ref = 0
	_, v := s.check(13)
	if len(v) == 0 || !strings.Contains(v[0], "b claims turn 2 while a still holds turn 1") {
		t.Fatalf("claim while held not reported: %q", v)
	}
	// A takeover for a gone process the driver never killed.
	s = soundScene()
	s.lines = append(s.lines[:7], s.lines[9:]...) // no kill lines for c
	_, v = s.check(13)
	found := false
	for _, x := range v {
		found = found || strings.Contains(x, "says the process of c is gone (owner_gone), but the driver never killed it")
	}
	if !found {
		t.Fatalf("takeover of a live process not reported: %q", v)
	}
	// A holder killed and reaped before the takeover must be seen gone:
	// a timeout means its death went unnoticed.
	s = soundScene()
	s.events[9].Data = takeoverData(stick.ReasonOwnerTimeout)
	_, v = s.check(13)
	wantViolation(t, v, "takeover #10 at")
	if !strings.Contains(v[0], "revoked c for owner_timeout, but c was killed and reaped at") {
		t.Fatalf("unnoticed death reported as %q", v[0])
	}
	// Once the agents were told to stop, a stopped agent may be found gone.
	s.stop = 9
	s.lines = append(s.lines, "kill b 11")
	_, v = s.check(13)
	for _, x := range v {
		if strings.Contains(x, "never killed") {
			t.Fatalf("takeover after the stop reported: %q", x)
		}
	}
}

func TestHistoryHandOnInsideSection(t *testing.T) {
	s := soundScene()
	s.lines = append(s.lines[:2], s.lines[3:]...) // a never wrote exit for turn 1
	_, v := s.check(13)
	found := false
	for _, x := range v {
		found = found || strings.Contains(x, "a handed on turn 1 (release #6) without leaving its critical section first")
	}
	if !found {
		t.Fatalf("handoff from inside the critical section not reported: %q", v)
	}
}

// Over a hub, a killed member's death is known once the hub could know
// it: at once for a killed agent whose proxy was connected, a grace after
// a killed proxy's stream dropped, and at most a grace after the hub last
// started. A takeover for a timeout before then is sound; one after, not.
func TestHistoryKnownGoneOverAHub(t *testing.T) {
	const reaped = "999999999900" // 110 ms before the takeover (#10)
	for _, c := range []struct {
		name, hub, killed string
		want              string // "" for none
		since             bool   // the violation says when it was known gone
	}{
		{"a killed proxy, within the grace", "999999990000", "killed c 12 " + reaped + " proxy", "", false},
		{"a killed agent, soon after a restart", "999999999000", "killed c 12 " + reaped, "", false},
		{"a killed agent, long after a restart", "999999990000", "killed c 12 " + reaped,
			"revoked c for owner_timeout, but c was killed and reaped at", false},
		{"a killed proxy, past the grace", "999999980000", "killed c 12 999999990000 proxy",
			"revoked c for owner_timeout, but c was killed and reaped at", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := soundScene()
			s.grace = 3 * time.Second
			s.events[9].Data = takeoverData(stick.ReasonOwnerTimeout)
			s.lines[8] = c.killed
			s.lines = append([]string{"hub " + c.hub}, s.lines...)
			_, v := s.check(13)
			if c.want == "" {
				wantNoViolation(t, v)
				return
			}
			wantViolation(t, v, c.want)
			if strings.Contains(v[0], ", known gone since ") != c.since {
				t.Fatalf("the violation says when c was known gone (%v): %q", !c.since, v[0])
			}
		})
	}
}
