package demo

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// child is one agent process the driver started.
type child struct {
	cfg    agentConfig
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr tail
	pid    int
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

// start runs an agent. Its stdout is read line by line into d.msgs; when it
// ends, the reader reaps the process and says so.
func (d *driver) startAgent(cfg agentConfig) error {
	cmd := exec.Command(d.exe, cfg.args()...)
	cmd.Env = append(os.Environ(), store.DataDirEnv+"="+d.data)
	cmd.Dir = string(d.ws)
	cmd.SysProcAttr = sysProcAttr()
	c := &child{cfg: cfg, cmd: cmd}
	cmd.Stderr = &c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return stick.Errorf(stick.CodeInternal, "demo: start %s: %v", cfg.name, err).Wrap(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return stick.Errorf(stick.CodeInternal, "demo: start %s: %v", cfg.name, err).Wrap(err)
	}
	runtime.LockOSThread() // see sysProcAttr
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		return stick.Errorf(stick.CodeInternal, "demo: start %s: %v", cfg.name, err).Wrap(err)
	}
	c.stdin = stdin
	d.children = append(d.children, c)
	d.wg.Add(1)
	go d.read(c, stdout)
	return nil
}

// read delivers c's stdout lines until it ends or the driver stops
// listening, then reaps c.
func (d *driver) read(c *child, stdout io.Reader) {
	defer d.wg.Done()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := message{c: c}
		var s step
		if err := json.Unmarshal(sc.Bytes(), &s); err == nil && s.Kind != "" {
			m.step = &s
		} else {
			m.raw = sc.Text()
		}
		if !d.send(m) {
			break
		}
	}
	_, _ = io.Copy(io.Discard, stdout) // so the child never blocks on a full pipe
	_ = c.cmd.Wait()
	d.send(message{c: c, exit: true})
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
		_ = c.stdin.Close()
		_ = c.cmd.Process.Kill() // an exited child is not an error here
	}
	d.wg.Wait()
}

// tail keeps the last 8 KiB written to it: a child's stderr, for errors.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

// Write implements io.Writer.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 8<<10; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String returns what was kept.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
