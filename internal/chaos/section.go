package chaos

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The check file is the independent record of who was in its critical
// section when. Agents and the driver append to it with one O_APPEND write
// per line, so lines never interleave and their order is the order in which
// they happened. The lines are:
//
//	enter <turn> <agent> <pid> <claim|takeover> <token>   the agent got the stick
//	work <turn> <agent> <pid> <n>                          the agent works, still inside
//	exit <turn> <agent> <pid> <why>                        the agent left, before handing on
//	kill <agent> <pid>                                     the driver is about to SIGKILL it (or its proxy)
//	killed <agent> <pid> <unix ms> [proxy]                 the driver reaped it, at that time (after killing its proxy)
//	hub <unix ms>                                          the hub listens (again) since then
//
// token is the handoff the grantee received (for a claim) or the newest
// handoff in the log (for a takeover), "-" for none. A killed line ends
// with "proxy" when the driver killed the agent's proxy, and the agent,
// cut off from the room, exited by itself.
const (
	verbEnter  = "enter"
	verbWork   = "work"
	verbExit   = "exit"
	verbKill   = "kill"
	verbKilled = "killed"
	verbHub    = "hub"
)

// viaProxy ends the killed line of an agent whose proxy was killed.
const viaProxy = "proxy"

// noToken stands for "no handoff" in enter lines.
const noToken = "-"

func enterLine(turn int64, agent string, pid int, how, token string) string {
	return fmt.Sprintf("%s %d %s %d %s %s\n", verbEnter, turn, agent, pid, how, token)
}

func workLine(turn int64, agent string, pid, n int) string {
	return fmt.Sprintf("%s %d %s %d %d\n", verbWork, turn, agent, pid, n)
}

func exitLine(turn int64, agent string, pid int, why string) string {
	return fmt.Sprintf("%s %d %s %d %s\n", verbExit, turn, agent, pid, why)
}

func killLine(agent string, pid int) string {
	return fmt.Sprintf("%s %s %d\n", verbKill, agent, pid)
}

func killedLine(agent string, pid int, at time.Time, proxy bool) string {
	if proxy {
		return fmt.Sprintf("%s %s %d %d %s\n", verbKilled, agent, pid, at.UnixMilli(), viaProxy)
	}
	return fmt.Sprintf("%s %s %d %d\n", verbKilled, agent, pid, at.UnixMilli())
}

func hubLine(at time.Time) string {
	return fmt.Sprintf("%s %d\n", verbHub, at.UnixMilli())
}

// sectionLine is one parsed line of the check file.
type sectionLine struct {
	verb  string
	turn  int64
	agent string
	pid   int
	// arg is the enter line's how, the work line's count or the exit line's why.
	arg string
	// token is the enter line's token.
	token string
	// at is the killed or hub line's time.
	at time.Time
	// proxy says a killed line is for an agent whose proxy was killed.
	proxy bool
}

func parseSectionLine(s string) (sectionLine, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return sectionLine{}, fmt.Errorf("empty line")
	}
	l := sectionLine{verb: f[0]}
	want := map[string]int{verbEnter: 6, verbWork: 5, verbExit: 5, verbKill: 3, verbKilled: 4, verbHub: 2}[l.verb]
	if want == 0 {
		return l, fmt.Errorf("unknown verb %q", l.verb)
	}
	if l.verb == verbKilled && len(f) == want+1 && f[want] == viaProxy {
		l.proxy, f = true, f[:want]
	}
	if len(f) != want {
		return l, fmt.Errorf("%s line with %d fields, want %d", l.verb, len(f), want)
	}
	var err error
	if l.verb == verbHub {
		ms, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return l, fmt.Errorf("bad time %q", f[1])
		}
		l.at = time.UnixMilli(ms)
		return l, nil
	}
	if l.verb == verbKill || l.verb == verbKilled {
		l.agent = f[1]
		if l.pid, err = strconv.Atoi(f[2]); err != nil {
			return l, fmt.Errorf("bad pid %q", f[2])
		}
		if l.verb == verbKilled {
			ms, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return l, fmt.Errorf("bad time %q", f[3])
			}
			l.at = time.UnixMilli(ms)
		}
		return l, nil
	}
	if l.turn, err = strconv.ParseInt(f[1], 10, 64); err != nil || l.turn < 1 {
		return l, fmt.Errorf("bad turn %q", f[1])
	}
	l.agent = f[2]
	if l.pid, err = strconv.Atoi(f[3]); err != nil {
		return l, fmt.Errorf("bad pid %q", f[3])
	}
	l.arg = f[4]
	if _, err := strconv.Atoi(l.arg); l.verb == verbWork && err != nil {
		return l, fmt.Errorf("bad work count %q", l.arg)
	}
	if l.verb == verbEnter {
		l.token = f[5]
	}
	return l, nil
}

// entered is an enter line: who got which turn, how, and with what handoff.
type entered struct {
	turn  int64
	agent string
	how   string
	token string
	line  int
}

// sectionChecker reads the check file line by line, as it grows, and
// records every violation of mutual exclusion:
//
//   - an enter while another agent is inside is allowed only when the
//     driver wrote "kill" for the agent inside before that enter; the one
//     inside is then overtaken, and any later line of it is a violation
//     (it was alive while someone else held the stick);
//   - turns in enter lines strictly increase;
//   - work and exit lines belong to the agent inside, for its turn;
//   - nothing comes from an agent after its "killed" line;
//   - at the end, nobody is still inside unless it was killed, and the
//     file ends with a complete line.
//
// It also keeps the enters, exits and kills for the cross-check with the
// event log (see checkHistory).
type sectionChecker struct {
	lines      int
	partial    []byte
	inside     *entered
	lastTurn   int64
	enters     map[int64]entered
	exits      map[int64]string
	kills      map[string]int
	reaped     map[string]int
	reapedAt   map[string]time.Time
	cut        map[string]bool
	hubs       []time.Time
	overtaken  map[string]int
	tail       []string
	violations []string
}

// sectionTail is how many of the newest lines a checker keeps for reports.
const sectionTail = 15

func newSectionChecker() *sectionChecker {
	return &sectionChecker{
		enters: map[int64]entered{}, exits: map[int64]string{},
		kills: map[string]int{}, reaped: map[string]int{}, reapedAt: map[string]time.Time{}, cut: map[string]bool{}, overtaken: map[string]int{},
	}
}

// feed adds bytes read from the file: complete lines are checked, an
// incomplete last line waits for the rest.
func (c *sectionChecker) feed(b []byte) {
	c.partial = append(c.partial, b...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			return
		}
		c.line(string(c.partial[:i]))
		c.partial = c.partial[i+1:]
	}
}

// knownGone returns when the room must know that agent, killed and
// reaped, is gone, judged at time at by a room whose proxy grace is
// grace; false when it was not reaped. An agent that uses the library is
// known gone when it was reaped. Over a hub (hub lines), the hub's
// liveness knows what the proxies' streams tell it since it last started
// (h, the last hub line before at): an agent killed while its proxy was
// connected is known gone at once, since its proxy says so; one whose
// proxy had not connected again after a restart at the latest a grace
// after that restart; and one whose proxy was killed a grace after the
// proxy's stream dropped, or after the restart, whichever is later.
func (c *sectionChecker) knownGone(agent string, at time.Time, grace time.Duration) (time.Time, bool) {
	reaped, ok := c.reapedAt[agent]
	if !ok {
		return time.Time{}, false
	}
	var h time.Time
	for _, t := range c.hubs {
		if t.After(at) {
			break
		}
		h = t
	}
	switch {
	case h.IsZero():
		return reaped, true
	case c.cut[agent]:
		return later(reaped, h).Add(grace), true
	}
	return later(reaped, h.Add(grace)), true
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// killed reports whether the driver wrote a kill line for agent.
func (c *sectionChecker) killed(agent string) bool {
	_, ok := c.kills[agent]
	return ok
}

func (c *sectionChecker) fail(n int, format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf("check file line %d: ", n)+fmt.Sprintf(format, args...))
}

// line checks one complete line.
func (c *sectionChecker) line(s string) {
	c.lines++
	n := c.lines
	c.tail = append(c.tail, fmt.Sprintf("%6d  %s", n, s))
	if len(c.tail) > sectionTail {
		c.tail = c.tail[1:]
	}
	l, err := parseSectionLine(s)
	if err != nil {
		c.fail(n, "unreadable line %q: %v", s, err)
		return
	}
	switch l.verb {
	case verbKill:
		if _, dup := c.kills[l.agent]; dup {
			c.fail(n, "%s killed twice", l.agent)
		}
		c.kills[l.agent] = n
		return
	case verbKilled:
		if !c.killed(l.agent) {
			c.fail(n, "%s reaped without a kill line before it", l.agent)
		}
		c.reaped[l.agent], c.reapedAt[l.agent] = n, l.at
		if l.proxy {
			c.cut[l.agent] = true
		}
		return
	case verbHub:
		c.hubs = append(c.hubs, l.at)
		return
	}
	if r, ok := c.reaped[l.agent]; ok {
		c.fail(n, "%s wrote %q after it was killed and reaped (line %d)", l.agent, s, r)
		return
	}
	if o, ok := c.overtaken[l.agent]; ok {
		c.fail(n, "%s wrote %q after another agent entered at line %d: two holders at once", l.agent, s, o)
		return
	}
	switch l.verb {
	case verbEnter:
		c.enter(n, l)
	case verbWork, verbExit:
		in := c.inside
		if in == nil || in.agent != l.agent || in.turn != l.turn {
			c.fail(n, "%s %s turn %d outside its critical section (%s)", l.agent, l.verb, l.turn, describeInside(in))
		}
		if l.verb == verbExit {
			if in != nil && in.agent == l.agent {
				c.inside = nil
			}
			c.exits[l.turn] = l.agent
		}
	}
}

func (c *sectionChecker) enter(n int, l sectionLine) {
	if l.turn <= c.lastTurn {
		c.fail(n, "%s entered turn %d after turn %d was entered: turns must strictly increase", l.agent, l.turn, c.lastTurn)
	}
	if in := c.inside; in != nil {
		switch _, killed := c.kills[in.agent]; {
		case in.agent == l.agent:
			c.fail(n, "%s entered turn %d while still inside turn %d (line %d)", l.agent, l.turn, in.turn, in.line)
		case killed:
			c.overtaken[in.agent] = n
		default:
			c.fail(n, "%s entered turn %d while %s was still inside turn %d (line %d) and was not being killed: two holders at once",
				l.agent, l.turn, in.agent, in.turn, in.line)
			c.overtaken[in.agent] = n
		}
	}
	e := entered{turn: l.turn, agent: l.agent, how: l.arg, token: l.token, line: n}
	c.inside = &e
	if _, dup := c.enters[l.turn]; !dup {
		c.enters[l.turn] = e
	}
	c.lastTurn = l.turn // one report per out-of-order enter, not one per later line
}

func describeInside(in *entered) string {
	if in == nil {
		return "nobody is inside"
	}
	return fmt.Sprintf("%s is inside turn %d since line %d", in.agent, in.turn, in.line)
}

// finish checks the end of the file, once every writer has stopped.
func (c *sectionChecker) finish() {
	if len(c.partial) > 0 {
		c.fail(c.lines+1, "the file ends in an incomplete line %q", c.partial)
	}
	if in := c.inside; in != nil && !c.killed(in.agent) {
		c.fail(in.line, "%s never left turn %d and was not killed", in.agent, in.turn)
	}
}
