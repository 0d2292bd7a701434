package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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
	return startCmd(cmd)
}

// startCmd starts cmd as a child.
func startCmd(cmd *exec.Cmd) (*child, error) {
	c := &child{cmd: cmd, lines: make(chan string, 64), done: make(chan struct{})}
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
			return "", fmt.Errorf("child %d ended (%v) before %q: %s", c.pid(), c.err, prefix, c.stderr())
		}
		rest, found := strings.CutPrefix(line, prefix)
		if !found {
			return "", fmt.Errorf("child %d said %q, want %q...: %s", c.pid(), line, prefix, c.stderr())
		}
		return strings.TrimSpace(rest), nil
	case <-t.C:
		return "", fmt.Errorf("child %d said nothing for %v, want %q: %s", c.pid(), timeout, prefix, c.stderr())
	case <-ctx.Done():
		return "", ctx.Err()
	}
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
			return fmt.Errorf("child %d: %v: %s", c.pid(), c.err, c.stderr())
		}
		return nil
	case <-time.After(timeout):
		c.kill()
		return fmt.Errorf("child %d did not exit within %v after its input closed", c.pid(), timeout)
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

// errOf returns the first non-nil error.
func errOf(errs ...error) error { return errors.Join(errs...) }

// roleMain wraps a role's body: errors go to stderr with exit code 1.
func roleMain(name string, fn func(args []string) error) func([]string) int {
	return func(args []string) int {
		if err := fn(args); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return 1
		}
		return 0
	}
}
