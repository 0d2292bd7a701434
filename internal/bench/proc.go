package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/stickhq/stick/internal/reexec"
)

// child is a role of this program running in another process. It speaks
// in lines: it reads commands on stdin and writes results on stdout; its
// stderr is kept for error messages.
type child struct {
	name  string // the role and member, for messages
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	mu    sync.Mutex
	errs  strings.Builder
	done  chan struct{}
	err   error
}

// start runs role with args and the extra environment.
func start(ctx context.Context, env []string, role string, args ...string) (*child, error) {
	cmd, err := reexec.Command(ctx, role, args...)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(cmd.Env, env...)
	c, err := startCmd(cmd)
	if err == nil {
		c.name = role
		if len(args) > 2 {
			c.name += " " + args[2] // the member id of the library roles
		}
	}
	return c, err
}

// startCmd starts cmd as a child.
func startCmd(cmd *exec.Cmd) (*child, error) {
	c := &child{name: strings.Join(append([]string{filepath.Base(cmd.Path)}, cmd.Args[1:]...), " "),
		cmd: cmd, lines: make(chan string, 64), done: make(chan struct{})}
	dieWithParent(cmd)
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.errs.Len() < 64<<10 {
			c.errs.Write(p)
		}
		return len(p), nil
	})
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	c.stdin = stdin
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// pid is the child's process id.
func (c *child) pid() int { return c.cmd.Process.Pid }

// stderr returns what the child wrote on stderr so far.
func (c *child) stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.TrimSpace(c.errs.String())
}

// expect reads the next line and checks that it starts with prefix; it
// returns the rest of the line.
func (c *child) expect(ctx context.Context, prefix string, timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-c.lines:
		if !ok {
			<-c.done
			return "", fmt.Errorf("%s exited (%v) before it answered%s", c, exitStatus(c.err), c.stderrNote())
		}
		rest, found := strings.CutPrefix(line, prefix)
		if !found {
			return "", fmt.Errorf("%s said %q, expected %q%s", c, line, prefix, c.stderrNote())
		}
		return strings.TrimSpace(rest), nil
	case <-t.C:
		return "", fmt.Errorf("%s said nothing for %v%s", c, timeout, c.stderrNote())
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// String names the child in messages.
func (c *child) String() string { return fmt.Sprintf("%s (pid %d)", c.name, c.pid()) }

// stderrNote is the child's stderr, prefixed for a message, or "".
func (c *child) stderrNote() string {
	if s := c.stderr(); s != "" {
		return "; it wrote: " + s
	}
	return ""
}

// exitStatus says how a child ended.
func exitStatus(err error) string {
	if err == nil {
		return "status 0"
	}
	return err.Error()
}

// send writes one line to the child's stdin.
func (c *child) send(line string) error {
	_, err := io.WriteString(c.stdin, line+"\n")
	return err
}

// finish closes stdin and waits for the child to exit by itself.
func (c *child) finish(timeout time.Duration) error {
	_ = c.stdin.Close()
	select {
	case <-c.done:
		if c.err != nil {
			return fmt.Errorf("%s: %v%s", c, c.err, c.stderrNote())
		}
		return nil
	case <-time.After(timeout):
		c.kill()
		return fmt.Errorf("%s did not exit within %v after its input closed", c, timeout)
	}
}

// kill ends the child with SIGKILL and reaps it; safe to call twice.
func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	_ = c.stdin.Close()
	for range c.lines {
	}
	<-c.done
}

// exited reports whether the process has been reaped.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// killAll kills and reaps every child still running.
func killAll(cs []*child) {
	for _, c := range cs {
		if c != nil && !c.exited() {
			c.kill()
		}
	}
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
