package chaos

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stickhq/stick/stick"
)

// An agent tells the driver what happened on its standard output, one line
// per message:
//
//	ready <pid> <agent> <proxy pid>              joined as member agent (through that proxy, 0 for none)
//	handed <seq> <release|pass> <token>          a release or pass committed as event seq
//	stall <turn>                                 it holds turn without heartbeating
//	dawdle                                       it waits longer than the claim TTL before its next wait
//	lost <op> <turn> <code> <early|expired>      an owner operation found the lease gone
//	err <op> <code> <message>                    any other error a call returned
//	found <op>                                   a call whose answer was lost had committed: the log says so
const (
	msgReady  = "ready"
	msgHanded = "handed"
	msgStall  = "stall"
	msgDawdle = "dawdle"
	msgLost   = "lost"
	msgErr    = "err"
	msgFound  = "found"
)

// Whether a lost lease was found before or after it expired.
const (
	lostEarly   = "early"
	lostExpired = "expired"
)

// say prints one message to the driver.
func (a *agent) say(kind string, fields ...string) error {
	line := strings.Join(append([]string{kind}, fields...), " ") + "\n"
	if _, err := a.out.Write([]byte(line)); err != nil {
		return fmt.Errorf("tell the driver %q: %w", strings.TrimSpace(line), err)
	}
	return nil
}

// report tells the driver about an error a call returned.
func (a *agent) report(op string, err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	return a.say(msgErr, op, string(stick.ErrorCode(err)), msg)
}

// expectedError reports whether an agent may see code from op in a sound
// soak: a takeover that lost a race, or a pass whose target died.
func expectedError(op string, code stick.Code) bool {
	switch op {
	case "takeover":
		return code == stick.CodeTurnMismatch || code == stick.CodeTakeoverNotAvailable || code == stick.CodeTakeoverIneligible
	case "pass":
		return code == stick.CodeUnknownMember
	}
	return false
}

// message is one parsed line of an agent.
type message struct {
	kind  string
	agent string
	proxy int
	op    string
	code  stick.Code
	turn  int64
	when  string
	text  string
	seq   int64
	typ   string
	token string
}

func parseMessage(line string) (message, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return message{}, fmt.Errorf("empty line")
	}
	m := message{kind: f[0]}
	bad := func() (message, error) { return m, fmt.Errorf("malformed %s message %q", m.kind, line) }
	var err error
	switch m.kind {
	case msgReady:
		if len(f) != 4 {
			return bad()
		}
		if m.proxy, err = strconv.Atoi(f[3]); err != nil {
			return bad()
		}
		m.agent = f[2]
	case msgDawdle:
	case msgStall:
		if len(f) != 2 {
			return bad()
		}
		if m.turn, err = strconv.ParseInt(f[1], 10, 64); err != nil {
			return bad()
		}
	case msgHanded:
		if len(f) != 4 {
			return bad()
		}
		if m.seq, err = strconv.ParseInt(f[1], 10, 64); err != nil {
			return bad()
		}
		m.typ, m.token = f[2], f[3]
	case msgLost:
		if len(f) != 5 || (f[4] != lostEarly && f[4] != lostExpired) {
			return bad()
		}
		if m.turn, err = strconv.ParseInt(f[2], 10, 64); err != nil {
			return bad()
		}
		m.op, m.code, m.when = f[1], stick.Code(f[3]), f[4]
	case msgFound:
		if len(f) != 2 {
			return bad()
		}
		m.op = f[1]
	case msgErr:
		if len(f) < 3 {
			return bad()
		}
		m.op, m.code, m.text = f[1], stick.Code(f[2]), strings.Join(f[3:], " ")
	default:
		return m, fmt.Errorf("unknown message %q", line)
	}
	return m, nil
}
