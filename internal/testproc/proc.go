package testproc

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
)

// Proc is a running helper process started by [Start]. Its methods are
// safe for concurrent use.
type Proc struct {
	p *childproc.Proc
}

// Start runs the current test binary as helper name with args and returns
// it running. Its stdout is read line by line with [Proc.ReadLine], its
// stdin is a pipe ([Proc.Stdin]), and its stderr is captured and logged
// when the test fails. The test's cleanup kills (SIGKILL) and reaps the
// process if it still runs, so no test leaves orphans or zombies.
func Start(t testing.TB, name string, args ...string) *Proc {
	t.Helper()
	return StartEnv(t, nil, name, args...)
}

// StartEnv is [Start] with extra environment variables ("KEY=value"),
// which override inherited ones of the same name.
func StartEnv(t testing.TB, env []string, name string, args ...string) *Proc {
	t.Helper()
	cmd := command(t, name, args)
	cmd.Env = append(cmd.Env, env...)
	p, err := childproc.Start(cmd, childproc.Options{Name: name})
	if err != nil {
		t.Fatalf("testproc: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("testproc: cleanup: %v", err)
		}
		if t.Failed() {
			t.Logf("testproc: %s stderr:\n%s", p, p.Stderr())
		}
	})
	return &Proc{p}
}

// Command returns an unstarted command that runs the current test binary
// as helper name with args, for tests that need full control (e.g. to
// leave an exited child unreaped). The caller starts and waits for it; if
// it was started but not waited for when the test ends, cleanup kills and
// reaps it. Stdin, stdout and stderr are unset (the null device).
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := command(t, name, args)
	childproc.DieWithParent(cmd)
	t.Cleanup(func() {
		if cmd.Process != nil && cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// command builds the re-execution of the test binary as helper name.
func command(t testing.TB, name string, args []string) *exec.Cmd {
	t.Helper()
	if why := checkHelper(name); why != "" {
		t.Fatalf("testproc: %s", why)
	}
	cmd, err := reexec.Command(context.Background(), name, args...)
	if err != nil {
		t.Fatalf("testproc: %v", err)
	}
	return cmd
}

// PID returns the child's process id.
func (p *Proc) PID() int { return p.p.PID() }

// Stdin returns the write end of the child's stdin. Closing it gives the
// child end of file.
func (p *Proc) Stdin() io.WriteCloser { return p.p.Stdin() }

// Stderr returns what the child wrote to stderr so far (its last 64 KiB).
func (p *Proc) Stderr() string { return p.p.Stderr() }

// ReadLine returns the child's next stdout line, without the newline. It
// fails when stdout ends or no line arrives within timeout; the timeout is
// a safety net against hung tests, not a measurement.
func (p *Proc) ReadLine(timeout time.Duration) (string, error) {
	line, err := p.p.Next(context.Background(), timeout)
	if err != nil {
		return "", fmt.Errorf("testproc: %w", err)
	}
	return line, nil
}

// Wait waits for the child to exit, reaps it, and returns its exit code
// (-1 when a signal killed it). err reports only failures to wait, not a
// non-zero exit. Later calls return the same result.
func (p *Proc) Wait() (exitCode int, err error) {
	st, err := p.p.Wait()
	if err != nil || st == nil {
		return -1, err
	}
	return st.ExitCode(), nil
}

// Kill sends SIGKILL to the child and reaps it, so it does not linger as a
// zombie. Killing an exited child is not an error.
func (p *Proc) Kill() error { return p.p.Kill() }
