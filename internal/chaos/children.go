package chaos

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
)

// child is one agent process. The driver's goroutine alone sets its
// fields after start; the process's reader goroutine only sets member and
// proxy, then closes ready.
type child struct {
	slot int
	// id is the agent's provisional id, its member id when it uses the
	// library; over a hub, member is the id the hub named it by and proxy
	// its proxy process, both known once ready closed.
	id     string
	pid    int
	p      *childproc.Proc
	hub    bool
	member string
	proxy  procid.Identity
	// ready closes when the agent reports that it joined; p.Done when it
	// exited and was reaped and its messages were all taken.
	ready     chan struct{}
	readyOnce sync.Once
	// killed and stopping say why it may exit: the driver killed it (or
	// its proxy), or told it to stop.
	killed, stopping bool
}

// name returns the member id the agent acts as, and whether it is known:
// at once for an agent of the library, once it said it joined for one
// behind a proxy, whom the driver never kills before.
func (c *child) name() (string, bool) {
	if !c.hub {
		return c.id, true
	}
	select {
	case <-c.ready:
		return c.member, true
	default:
		return "", false
	}
}

// exited reports whether the child exited and was reaped.
func (c *child) exited() bool {
	select {
	case <-c.p.Done():
		return true
	default:
		return false
	}
}

// describe names the child and, once it exited, how, with its stderr.
func (c *child) describe() string {
	s := fmt.Sprintf("agent %s (pid %d)", c.id, c.pid)
	if m, ok := c.name(); ok && m != c.id {
		s = fmt.Sprintf("agent %s (%s, pid %d, proxy pid %d)", c.id, m, c.pid, c.proxy.PID)
	}
	if c.exited() {
		s += " " + c.p.State().String()
	}
	if e := strings.TrimSpace(c.p.Stderr()); e != "" {
		s += "; stderr: " + e
	}
	return s
}

// start runs a new agent in slot, with a fresh agent id (a proven-dead id
// may not come back while others are active) and a seed from the driver's
// random source. Its messages go to onMessage as they come.
func (d *driver) start(ctx context.Context, slot int) error {
	gen := d.gens[slot]
	d.gens[slot]++
	cfg := agentConfig{
		data: d.data, repo: d.repo, check: d.checkPath,
		id: fmt.Sprintf("a%d.r%d", slot, gen), seed: d.rng.Uint64(),
	}
	if d.o.Hub {
		cfg.server, cfg.proxyDir = d.hub.url, d.proxyDir
	}
	cmd, err := reexec.Command(ctx, agentRole, cfg.args()...)
	if err != nil {
		return err
	}
	if d.o.Hub {
		cmd.Env = append(cmd.Env, tokenEnv+"="+d.hub.token)
	} else {
		cmd.Env = append(cmd.Env, d.db.Env()...)
	}
	c := &child{slot: slot, id: cfg.id, hub: d.o.Hub, ready: make(chan struct{})}
	c.p, err = childproc.Start(cmd, childproc.Options{Name: "agent " + c.id, StderrTail: 4 << 10,
		OnLine: func(line string) bool { d.onMessage(c, line); return true }})
	if err != nil {
		return fmt.Errorf("chaos: start agent %s: %w", c.id, err)
	}
	c.pid = c.p.PID()
	d.slots[slot] = c
	d.all = append(d.all, c)
	return nil
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
	// Messages other than ready come after it: the agent acts as name.
	name := c.id
	if m.kind != msgReady {
		if n, ok := c.name(); ok {
			name = n
		}
	}
	switch m.kind {
	case msgReady:
		d.named(c, m)
	case msgHanded:
		t.handed = append(t.handed, handed{agent: name, seq: m.seq, typ: m.typ, token: m.token})
	case msgStall:
		t.stalls++
	case msgDawdle:
		t.dawdles++
	case msgFound:
		t.found[m.op]++
	case msgLost:
		t.errors[string(m.code)]++
		if m.when == lostEarly {
			d.failLocked("%s lost its lease of turn %d before the lease expired (%s: %s): someone took over a valid lease", name, m.turn, m.op, m.code)
		} else {
			t.lost++
		}
	case msgErr:
		t.errors[string(m.code)]++
		switch {
		case m.code == stick.CodeDBBusy:
			d.failLocked("db_busy reached a caller: %s's %s: %s", name, m.op, m.text)
		case !expectedError(m.op, m.code):
			d.failLocked("%s's %s failed with %s: %s", name, m.op, m.code, m.text)
		}
	}
}

// named records the member id and proxy of an agent that said it joined.
// An agent of the library must have joined as the id it was given.
func (d *driver) named(c *child, m message) {
	switch {
	case !c.hub && m.agent != c.id:
		d.failLocked("agent %s joined as %s", c.id, m.agent)
	case c.hub && m.proxy <= 0:
		d.failLocked("agent %s (%s) named no proxy", c.id, m.agent)
	case c.hub:
		c.member = m.agent
		var err error
		if c.proxy, err = procid.Of(m.proxy); err != nil {
			d.failLocked("agent %s: its proxy (pid %d): %v", c.id, m.proxy, err)
		}
	}
	c.readyOnce.Do(func() { close(c.ready) })
}

// kill SIGKILLs c and reaps it, with a kill line in the check file before
// and a killed line, stamped with the time of the reap, after. Over a
// hub, c's proxy must then exit by itself, once it told the hub.
func (d *driver) kill(c *child) error {
	name, _ := c.name()
	if err := d.appendCheck(killLine(name, c.pid)); err != nil {
		return err
	}
	c.killed = true
	_ = c.p.Signal(os.Kill) // one that exited already is reported below
	select {
	case <-c.p.Done():
	case <-time.After(stopTimeout):
		return fmt.Errorf("chaos: %s survived SIGKILL for %v", c.describe(), stopTimeout)
	}
	if runtime.GOOS != "windows" && c.p.State().ExitCode() != -1 {
		// Not ended by the signal: it had exited by itself just before.
		d.fail("%s exited by itself before the driver killed it", c.describe())
	}
	if c.hub && !c.proxy.IsZero() {
		d.hub.orphans = append(d.hub.orphans, orphan{agent: name, proxy: c.proxy, by: time.Now().Add(orphanTimeout)})
	}
	return d.appendCheck(killedLine(name, c.pid, time.Now(), false))
}

// killProxy SIGKILLs c's proxy, with a kill line for c in the check file
// before: the member is killed, not the agent. The agent, which can no
// longer reach the room, must then exit at once with exitProxyGone; the
// killed line after its reap says its proxy was killed, so that its death
// counts as known only once the room's grace has passed.
func (d *driver) killProxy(c *child) error {
	name, _ := c.name()
	if err := d.appendCheck(killLine(name, c.pid)); err != nil {
		return err
	}
	c.killed = true
	if procid.Check(c.proxy) != procid.Gone {
		if p, err := os.FindProcess(c.proxy.PID); err == nil {
			_ = p.Signal(os.Kill)
		}
	}
	deadline := time.Now().Add(stopTimeout)
	for procid.Check(c.proxy) != procid.Gone {
		if time.Now().After(deadline) {
			return fmt.Errorf("chaos: the proxy of %s survived SIGKILL for %v", c.describe(), stopTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case <-c.p.Done():
	case <-time.After(time.Until(deadline)):
		d.fail("%s still runs %v after its proxy was killed", c.describe(), stopTimeout)
		_ = c.p.Signal(os.Kill)
		<-c.p.Done()
	}
	if code := c.p.State().ExitCode(); code != exitProxyGone {
		d.fail("%s ended with exit code %d after its proxy was killed, want %d", c.describe(), code, exitProxyGone)
	}
	return d.appendCheck(killedLine(name, c.pid, time.Now(), true))
}

// orphan is the proxy of a killed agent, which must exit by itself by a
// deadline.
type orphan struct {
	agent string
	proxy procid.Identity
	by    time.Time
}

// checkOrphans records a violation for every proxy of a killed agent that
// still runs past its deadline, and kills it.
func (d *driver) checkOrphans() {
	now := time.Now()
	left := d.hub.orphans[:0]
	for _, o := range d.hub.orphans {
		switch {
		case procid.Check(o.proxy) == procid.Gone:
		case now.After(o.by):
			d.fail("the proxy (pid %d) of %s still runs %v after its agent was killed", o.proxy.PID, o.agent, orphanTimeout)
			killIdentity(o.proxy)
		default:
			left = append(left, o)
		}
	}
	d.hub.orphans = left
}

// killIdentity SIGKILLs the process p unless it is gone.
func killIdentity(p procid.Identity) {
	if procid.Check(p) == procid.Gone {
		return
	}
	if pr, err := os.FindProcess(p.PID); err == nil {
		_ = pr.Signal(os.Kill)
	}
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
			_ = c.p.Stdin().Close()
			live = append(live, c)
		}
	}
	deadline := time.Now().Add(stopTimeout)
	for _, c := range live {
		select {
		case <-c.p.Done():
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
		case !c.p.State().Success():
			d.fail("%s failed while stopping", c.describe())
		}
	}
}

// killAll kills and reaps every agent still running: the last word on
// every path out of a soak, so no agent outlives it. The messages an agent
// wrote before it died are still taken.
func (d *driver) killAll() {
	for _, c := range d.all {
		if !c.exited() {
			_ = c.p.Signal(os.Kill)
		}
	}
	for _, c := range d.all {
		_ = c.p.Close()
	}
	// Proxies outlive their agents until they told the hub: none
	// outlives the soak.
	for _, c := range d.all {
		if _, ok := c.name(); ok && !c.proxy.IsZero() {
			killIdentity(c.proxy)
		}
	}
	if d.hub.proc != nil {
		_ = d.hub.proc.Close()
	}
}
