package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
)

// child is a role of this program, or another program, running in
// another process. It speaks in lines: it reads commands on stdin and
// writes results on stdout; the tail of its stderr is kept for error
// messages.
type child struct {
	*childproc.Proc
}

// start runs role with args and, on top of the environment that opens
// the scenario's store (rundb.DB.Env), the extra environment env.
func (e *env) start(ctx context.Context, env []string, role string, args ...string) (*child, error) {
	cmd, err := reexec.Command(ctx, role, args...)
	if err != nil {
		return nil, err
	}
	if e.db.Dir != "" {
		cmd.Env = append(cmd.Env, e.db.Env()...)
	}
	cmd.Env = append(cmd.Env, env...)
	name := role
	if len(args) > 2 {
		name += " " + args[2] // the member id of the library roles
	}
	return startCmd(cmd, name)
}

// startCmd starts cmd as a child named name ("" for the program and its
// arguments). Its lines may be long (a whole JSON-RPC response).
func startCmd(cmd *exec.Cmd, name string) (*child, error) {
	p, err := childproc.Start(cmd, childproc.Options{Name: name, MaxLine: 64 << 20, Buffered: 64})
	if err != nil {
		return nil, err
	}
	return &child{p}, nil
}

// expect reads the next line and checks that it starts with prefix; it
// returns the rest of the line.
func (c *child) expect(ctx context.Context, prefix string, timeout time.Duration) (string, error) {
	line, err := c.Next(ctx, timeout)
	switch {
	case errors.Is(err, io.EOF):
		st, _ := c.Wait()
		<-c.Done()
		return "", fmt.Errorf("%s exited (%s) before it answered%s", c, exitStatus(st), c.stderrNote())
	case errors.Is(err, childproc.ErrTimeout):
		return "", fmt.Errorf("%s said nothing for %v%s", c, timeout, c.stderrNote())
	case err != nil:
		return "", err
	}
	rest, found := strings.CutPrefix(line, prefix)
	if !found {
		return "", fmt.Errorf("%s said %q, expected %q%s", c, line, prefix, c.stderrNote())
	}
	return strings.TrimSpace(rest), nil
}

// stderrNote is the child's stderr, prefixed for a message, or "".
func (c *child) stderrNote() string {
	if s := strings.TrimSpace(c.Stderr()); s != "" {
		return "; it wrote: " + s
	}
	return ""
}

// exitStatus says how a child ended.
func exitStatus(st *os.ProcessState) string {
	if st.Success() {
		return "status 0"
	}
	return st.String()
}

// finish closes stdin and waits for the child to exit by itself.
func (c *child) finish(timeout time.Duration) error {
	_ = c.Stdin().Close()
	select {
	case <-c.Done():
		if st := c.State(); !st.Success() {
			return fmt.Errorf("%s: %v%s", c, st, c.stderrNote())
		}
		return nil
	case <-time.After(timeout):
		_ = c.Close()
		return fmt.Errorf("%s did not exit within %v after its input closed", c, timeout)
	}
}

// killAll kills and reaps every child still running.
func killAll(cs []*child) {
	for _, c := range cs {
		if c != nil {
			_ = c.Close()
		}
	}
}

// pidsOf returns the process ids of cs.
func pidsOf(cs []*child) []int {
	pids := make([]int, len(cs))
	for i, c := range cs {
		pids[i] = c.PID()
	}
	return pids
}

// roleMain wraps a role's body: errors go to stderr with exit code 1.
func roleMain(name string, fn func(args []string) error) func([]string) int {
	return func(args []string) int {
		stop := startProfiles(name)
		err := fn(args)
		stop()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return 1
		}
		return 0
	}
}
