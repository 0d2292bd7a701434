package demo

import (
	"encoding/json"
	"os"
	"os/exec"
	"syscall"

	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// child is one agent process the driver started.
type child struct {
	cfg agentConfig
	p   *childproc.Proc
	pid int // the pid the agent reported when it joined
	// Set by the driver's loop as the child reports.
	closed bool             // it reported that the room closed
	exited bool             // it exited and was reaped
	state  *os.ProcessState // how it exited
}

// killedBySIGKILL reports whether the child was ended by SIGKILL.
func (c *child) killedBySIGKILL() bool {
	if c.state == nil {
		return false
	}
	ws, ok := c.state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// message is what a child's reader tells the driver: one stdout line, or
// that the child exited and was reaped.
type message struct {
	c    *child
	step *step  // a step the child reported
	raw  string // a stdout line that is not a step
	exit bool
}

// startAgent runs an agent in a process group of its own, so a Ctrl-C at
// the terminal reaches only the driver, which then kills it. Its stdout
// lines go to d.msgs as they come; once it exited and was reaped, and its
// last line was delivered, a message says so.
func (d *driver) startAgent(cfg agentConfig) error {
	cmd := exec.Command(d.exe, cfg.args()...)
	cmd.Env = append(os.Environ(), store.DataDirEnv+"="+d.data)
	cmd.Dir = string(d.ws)
	c := &child{cfg: cfg}
	p, err := childproc.Start(cmd, childproc.Options{Name: cfg.name, OwnGroup: true, StderrTail: 8 << 10,
		OnLine: func(line string) bool { return d.send(lineMessage(c, line)) }})
	if err != nil {
		return stick.Errorf(stick.CodeInternal, "demo: %v", err).Wrap(err)
	}
	c.p = p
	d.children = append(d.children, c)
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		<-p.Done()
		d.send(message{c: c, exit: true})
	}()
	return nil
}

// lineMessage is the message of one stdout line of c: a step, or the raw
// line when it is none.
func lineMessage(c *child, line string) message {
	m := message{c: c}
	var s step
	if err := json.Unmarshal([]byte(line), &s); err == nil && s.Kind != "" {
		m.step = &s
	} else {
		m.raw = line
	}
	return m
}

// send hands m to the driver's loop, unless the driver stopped listening.
func (d *driver) send(m message) bool {
	select {
	case d.msgs <- m:
		return true
	case <-d.quit:
		return false
	}
}

// stopChildren stops listening, kills every child still running, and
// returns once all of them are reaped and their readers have ended.
func (d *driver) stopChildren() {
	close(d.quit)
	for _, c := range d.children {
		_ = c.p.Close() // an exited child is not an error here
	}
	d.wg.Wait()
}
