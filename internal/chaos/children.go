package chaos

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/stick"
)

// child is one agent process. The driver's goroutine alone sets its
// fields after start; its reader goroutine only closes ready and done.
type child struct {
	slot   int
	id     string
	pid    int
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr tailBuffer
	// ready closes when the agent reports that it joined; done when it
	// exited and was reaped (cmd.ProcessState is set then).
	ready     chan struct{}
	readyOnce sync.Once
	done      chan struct{}
	// killed and stopping say why it may exit: the driver killed it, or
	// told it to stop.
	killed, stopping bool
}

// exited reports whether the child exited and was reaped.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// describe names the child and, once it exited, how, with its stderr.
func (c *child) describe() string {
	s := fmt.Sprintf("agent %s (pid %d)", c.id, c.pid)
	if c.exited() {
		s += " " + c.cmd.ProcessState.String()
	}
	if e := strings.TrimSpace(c.stderr.String()); e != "" {
		s += "; stderr: " + e
	}
	return s
}

// start runs a new agent in slot, with a fresh agent id (a proven-dead id
// may not come back while others are active) and a seed from the driver's
// random source.
func (d *driver) start(ctx context.Context, slot int) error {
	gen := d.gens[slot]
	d.gens[slot]++
	cfg := agentConfig{
		data: d.data, repo: d.repo, check: d.checkPath,
		id: fmt.Sprintf("a%d.r%d", slot, gen), seed: d.rng.Uint64(),
	}
	cmd, err := reexec.Command(ctx, agentRole, cfg.args()...)
	if err != nil {
		return err
	}
	cmd.SysProcAttr = sysProcAttr()
	c := &child{slot: slot, id: cfg.id, cmd: cmd, ready: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = &c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("chaos: start agent %s: %w", c.id, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("chaos: start agent %s: %w", c.id, err)
	}
	runtime.LockOSThread() // see sysProcAttr
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		return fmt.Errorf("chaos: start agent %s: %w", c.id, err)
	}
	c.stdin, c.pid = stdin, cmd.Process.Pid
	d.slots[slot] = c
	d.all = append(d.all, c)
	go d.read(c, stdout)
	return nil
}

// read takes c's messages until its stdout ends, then reaps it.
func (d *driver) read(c *child, stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		d.onMessage(c, sc.Text())
	}
	_, _ = io.Copy(io.Discard, stdout)
	_ = c.cmd.Wait()
	close(c.done)
}

// onMessage records one message of c.
func (d *driver) onMessage(c *child, line string) {
	m, err := parseMessage(line)
	if err != nil {
		d.fail("agent %s: %v", c.id, err)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := &d.tally
	switch m.kind {
	case msgReady:
		c.readyOnce.Do(func() { close(c.ready) })
	case msgHanded:
		t.handed = append(t.handed, handed{agent: c.id, seq: m.seq, typ: m.typ, token: m.token})
	case msgStall:
		t.stalls++
	case msgDawdle:
		t.dawdles++
	case msgLost:
		t.errors[string(m.code)]++
		if m.when == lostEarly {
			d.failLocked("%s lost its lease of turn %d before the lease expired (%s: %s): someone took over a valid lease", c.id, m.turn, m.op, m.code)
		} else {
			t.lost++
		}
	case msgErr:
		t.errors[string(m.code)]++
		switch {
		case m.code == stick.CodeDBBusy:
			d.failLocked("db_busy reached a caller: %s's %s: %s", c.id, m.op, m.text)
		case !expectedError(m.op, m.code):
			d.failLocked("%s's %s failed with %s: %s", c.id, m.op, m.code, m.text)
		}
	}
}

// kill SIGKILLs c and reaps it, with a kill line in the check file before
// and a killed line, stamped with the time of the reap, after.
func (d *driver) kill(c *child) error {
	if err := d.appendCheck(killLine(c.id, c.pid)); err != nil {
		return err
	}
	c.killed = true
	_ = c.cmd.Process.Kill() // one that exited already is reported below
	select {
	case <-c.done:
	case <-time.After(stopTimeout):
		return fmt.Errorf("chaos: %s survived SIGKILL for %v", c.describe(), stopTimeout)
	}
	if runtime.GOOS != "windows" && c.cmd.ProcessState.ExitCode() != -1 {
		// Not ended by the signal: it had exited by itself just before.
		d.fail("%s exited by itself before the driver killed it", c.describe())
	}
	return d.appendCheck(killedLine(c.id, c.pid, time.Now()))
}

// checkExits records a violation for every current agent that exited
// although nobody killed it or told it to stop.
func (d *driver) checkExits() {
	for _, c := range d.slots {
		if c != nil && !c.killed && !c.stopping && c.exited() {
			d.fail("%s exited by itself", c.describe())
			c.killed = true // reported once
		}
	}
}

// stopAll tells every agent to stop (its stdin ends), gives them
// stopTimeout to finish their turns, and kills the rest.
func (d *driver) stopAll() {
	d.checkExits()
	var live []*child
	for _, c := range d.slots {
		if c != nil && !c.exited() {
			c.stopping = true
			_ = c.stdin.Close()
			live = append(live, c)
		}
	}
	deadline := time.Now().Add(stopTimeout)
	for _, c := range live {
		select {
		case <-c.done:
		case <-time.After(time.Until(deadline)):
		}
	}
	for _, c := range live {
		switch {
		case !c.exited():
			d.fail("%s did not stop within %v", c.describe(), stopTimeout)
			if err := d.kill(c); err != nil {
				d.fail("%v", err)
			}
		case !c.cmd.ProcessState.Success():
			d.fail("%s failed while stopping", c.describe())
		}
	}
}

// killAll kills and reaps every agent still running: the last word on
// every path out of a soak, so no agent outlives it.
func (d *driver) killAll() {
	for _, c := range d.all {
		if !c.exited() {
			_ = c.cmd.Process.Kill()
		}
	}
	for _, c := range d.all {
		<-c.done
	}
}

// tailBuffer keeps the last 4 KiB written to it: an agent's stderr.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 4<<10; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns what was kept.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
