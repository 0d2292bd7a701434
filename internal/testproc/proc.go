package testproc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proc is a running helper process started by [Start]. Its methods are
// safe for concurrent use.
type Proc struct {
	name   string
	cmd    *exec.Cmd
	stdin  *os.File // write end of the child's stdin
	stdout *os.File // read end of the child's stdout
	stderr *os.File // read end of the child's stderr

	lines   chan string   // stdout lines; closed at EOF
	done    chan struct{} // closed by cleanup: stop delivering lines
	scanErr error         // why stdout ended early; set before lines closes

	errBuf     tailBuffer    // captured stderr
	stderrDone chan struct{} // closed when stderr reaches EOF

	waitOnce sync.Once
	code     int
	waitErr  error
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

	var files []*os.File // every pipe end, closed if starting fails
	pipe := func() (r, w *os.File) {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(files)
			t.Fatalf("testproc: start %s: %v", name, err)
		}
		files = append(files, r, w)
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

	runtime.LockOSThread() // see sysProcAttr
	err := cmd.Start()
	runtime.UnlockOSThread()
	closeAll([]*os.File{inR, outW, errW}) // the child holds its own copies
	if err != nil {
		closeAll([]*os.File{inW, outR, errR})
		t.Fatalf("testproc: start %s: %v", name, err)
	}

	p := &Proc{
		name:       name,
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		lines:      make(chan string),
		done:       make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	go p.readLines()
	go func() {
		defer close(p.stderrDone)
		_, _ = io.Copy(&p.errBuf, errR)
	}()
	t.Cleanup(func() { p.cleanup(t) })
	return p
}

// Command returns an unstarted command that runs the current test binary
// as helper name with args, for tests that need full control (e.g. to
// leave an exited child unreaped). The caller starts and waits for it; if
// it was started but not waited for when the test ends, cleanup kills and
// reaps it. Stdin, stdout and stderr are unset (the null device).
func Command(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := command(t, name, args)
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
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("testproc: find test binary: %v", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), helperEnv+"="+name, raceEnv())
	cmd.SysProcAttr = sysProcAttr()
	return cmd
}

// raceEnv returns GORACE with atexit_sleep_ms=0 added: a binary built with
// -race otherwise sleeps a second when it exits with status 0, which makes
// every helper slow. Other options the user set are kept.
func raceEnv() string {
	opts := os.Getenv("GORACE")
	if strings.Contains(opts, "atexit_sleep_ms=") {
		return "GORACE=" + opts
	}
	return "GORACE=" + strings.TrimSpace(opts+" atexit_sleep_ms=0")
}

// PID returns the child's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Stdin returns the write end of the child's stdin. Closing it gives the
// child end of file.
func (p *Proc) Stdin() io.WriteCloser { return p.stdin }

// Stderr returns what the child wrote to stderr so far (its last 64 KiB).
func (p *Proc) Stderr() string { return p.errBuf.String() }

// ReadLine returns the child's next stdout line, without the newline. It
// fails when stdout ends or no line arrives within timeout; the timeout is
// a safety net against hung tests, not a measurement.
func (p *Proc) ReadLine(timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-p.lines:
		if ok {
			return line, nil
		}
		if p.scanErr != nil {
			return "", fmt.Errorf("testproc: %s: read stdout: %w%s", p.name, p.scanErr, p.stderrNote())
		}
		return "", fmt.Errorf("testproc: %s: stdout closed: %w%s", p.name, io.EOF, p.stderrNote())
	case <-timer.C:
		return "", fmt.Errorf("testproc: %s: no stdout line within %v%s", p.name, timeout, p.stderrNote())
	}
}

// Wait waits for the child to exit, reaps it, and returns its exit code
// (-1 when a signal killed it). err reports only failures to wait, not a
// non-zero exit. Later calls return the same result.
func (p *Proc) Wait() (exitCode int, err error) {
	p.waitOnce.Do(func() {
		err := p.cmd.Wait()
		p.code = -1
		if p.cmd.ProcessState != nil {
			p.code = p.cmd.ProcessState.ExitCode()
		}
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			p.waitErr = fmt.Errorf("testproc: wait for %s: %w", p.name, err)
		}
	})
	return p.code, p.waitErr
}

// Kill sends SIGKILL to the child and reaps it, so it does not linger as a
// zombie. Killing an exited child is not an error.
func (p *Proc) Kill() error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("testproc: kill %s: %w", p.name, err)
	}
	_, err := p.Wait()
	return err
}

// readLines delivers stdout lines to p.lines until EOF or cleanup.
func (p *Proc) readLines() {
	defer close(p.lines)
	sc := bufio.NewScanner(p.stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		select {
		case p.lines <- sc.Text():
		case <-p.done:
			return
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		p.scanErr = err
	}
}

// stderrGrace bounds how long cleanup waits for stderr to reach EOF after
// the child died (a grandchild may still hold it open).
const stderrGrace = 2 * time.Second

// cleanup kills and reaps the child, releases the pipes, and logs the
// child's stderr if the test failed.
func (p *Proc) cleanup(t testing.TB) {
	if err := p.Kill(); err != nil {
		t.Errorf("testproc: cleanup: %v", err)
	}
	close(p.done)
	select {
	case <-p.stderrDone:
	case <-time.After(stderrGrace):
	}
	closeAll([]*os.File{p.stdin, p.stdout, p.stderr})
	if t.Failed() {
		t.Logf("testproc: %s (pid %d) stderr:\n%s", p.name, p.PID(), p.Stderr())
	}
}

// stderrNote returns the captured stderr for error messages, or "".
func (p *Proc) stderrNote() string {
	if s := p.Stderr(); s != "" {
		return "; stderr:\n" + s
	}
	return ""
}

// closeAll closes files, ignoring errors: used only to release pipes.
func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
