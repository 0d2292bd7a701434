package childproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Options say how [Start] runs a child. The zero value is ready: stdout
// lines on [Proc.Lines], lines up to 1 MiB, the last 64 KiB of stderr.
type Options struct {
	// Name names the child in messages and [Proc.String]; by default the
	// program's base name and its arguments.
	Name string
	// OwnGroup puts the child in a process group of its own (Unix), so a
	// Ctrl-C typed at the terminal reaches only this process, which then
	// ends the child as it sees fit.
	OwnGroup bool
	// MaxLine bounds one line of stdout (default 1 MiB); a longer one ends
	// the delivery of lines with an error, and the rest is discarded.
	MaxLine int
	// Buffered is how many lines [Proc.Lines] holds before the reading
	// waits for the receiver (default 0: every line is handed over).
	Buffered int
	// OnLine, when set, receives every stdout line, in order, in the
	// goroutine that reads them, instead of [Proc.Lines]. It returns false
	// to stop: the rest of stdout is then read and dropped, so the child
	// never blocks on a full pipe. [Proc.Done] closes only after the last
	// call returned, so it must not block for ever: [Proc.Close] waits
	// for it.
	OnLine func(line string) bool
	// StderrTail is how many of the last bytes of stderr [Proc.Stderr]
	// keeps (default DefaultTail).
	StderrTail int
}

// ErrTimeout is wrapped by the error of [Proc.Next] when no line came in
// time.
var ErrTimeout = errors.New("no line in time")

// grace bounds how long closing a child waits for its stdout and stderr to
// reach end of file after it died: a grandchild may still hold them open.
const grace = 2 * time.Second

// Proc is a running child started by [Start]. Its methods are safe for
// concurrent use. It is reaped as soon as it exits, so its pid never
// lingers as a zombie and [Proc.Kill] never signals a reused pid.
type Proc struct {
	name   string
	cmd    *exec.Cmd
	stdin  *os.File // write end of the child's stdin
	stdout *os.File // read end of the child's stdout
	stderr *os.File // read end of the child's stderr

	errTail Tail

	lines   chan string // stdout lines, without OnLine; closed at the end
	readErr error       // why stdout could not be read to its end; set before read closes
	stop    chan struct{}
	stopped sync.Once

	read       chan struct{} // the reader finished: stdout ended or was dropped
	stderrRead chan struct{} // stderr reached end of file
	exited     chan struct{} // the child was reaped; waitErr is set
	waitErr    error
	done       chan struct{}
	closed     sync.Once
	closeErr   error
}

// Start starts cmd, which must not have its standard streams set, with
// pipes on all three, and returns it running. It sets cmd.SysProcAttr: on
// Linux the child is killed by the kernel if this process dies first.
func Start(cmd *exec.Cmd, o Options) (*Proc, error) {
	name := o.Name
	if name == "" {
		name = strings.Join(append([]string{filepath.Base(cmd.Path)}, cmd.Args[1:]...), " ")
	}
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil {
		return nil, fmt.Errorf("start %s: its standard streams are set already", name)
	}
	var files []*os.File // every pipe end, closed if starting fails
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err1 := pipe()
	outR, outW, err2 := pipe()
	errR, errW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll(files...)
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr(o.OwnGroup)
	runtime.LockOSThread() // see sysProcAttr
	err := cmd.Start()
	runtime.UnlockOSThread()
	closeAll(inR, outW, errW) // the child holds its own copies
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{name: name, cmd: cmd, stdin: inW, stdout: outR, stderr: errR,
		errTail: Tail{Max: o.StderrTail}, stop: make(chan struct{}),
		read: make(chan struct{}), stderrRead: make(chan struct{}), exited: make(chan struct{}), done: make(chan struct{})}
	deliver := o.OnLine
	if deliver == nil {
		p.lines = make(chan string, o.Buffered)
		deliver = p.hand
	}
	maxLine := o.MaxLine
	if maxLine <= 0 {
		maxLine = 1 << 20
	}
	go p.readLines(deliver, maxLine)
	go func() {
		defer close(p.stderrRead)
		_, _ = io.Copy(&p.errTail, errR)
	}()
	go p.reap()
	go func() {
		<-p.exited
		<-p.read
		select {
		case <-p.stderrRead:
		case <-time.After(grace):
		}
		close(p.done)
	}()
	return p, nil
}

// DieWithParent sets cmd up, as [Start] does its children, to be killed by
// the kernel when this process dies (Linux; elsewhere it sets nothing),
// for a command that something else starts, such as an MCP client
// transport.
func DieWithParent(cmd *exec.Cmd) { cmd.SysProcAttr = sysProcAttr(false) }

// PID returns the child's process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// String names the child and its pid, for messages.
func (p *Proc) String() string { return fmt.Sprintf("%s (pid %d)", p.name, p.PID()) }

// Stdin returns the write end of the child's stdin. Closing it gives the
// child end of file.
func (p *Proc) Stdin() io.WriteCloser { return p.stdin }

// Send writes line and a newline to the child's stdin.
func (p *Proc) Send(line string) error {
	_, err := io.WriteString(p.stdin, line+"\n")
	return err
}

// Stderr returns the tail of what the child wrote on stderr so far.
func (p *Proc) Stderr() string { return p.errTail.String() }

// Lines delivers the child's stdout lines, without their newlines, and is
// closed when stdout ended, could not be read further, or [Proc.Close]
// stopped the delivery. It is nil when [Options.OnLine] takes the lines.
func (p *Proc) Lines() <-chan string { return p.lines }

// Next returns the child's next stdout line from [Proc.Lines]. Its error
// wraps io.EOF when stdout ended (and says why when it could not be read),
// [ErrTimeout] when no line came within timeout, or is ctx's error. The
// timeout is a safety net against a hung child, not a measurement.
func (p *Proc) Next(ctx context.Context, timeout time.Duration) (string, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-p.lines:
		if ok {
			return line, nil
		}
		if p.readErr != nil {
			return "", fmt.Errorf("%s: read stdout: %w (%w)%s", p.name, p.readErr, io.EOF, p.stderrNote())
		}
		return "", fmt.Errorf("%s: stdout closed: %w%s", p.name, io.EOF, p.stderrNote())
	case <-timer.C:
		return "", fmt.Errorf("%s: no stdout line within %v: %w%s", p.name, timeout, ErrTimeout, p.stderrNote())
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Signal sends sig to the child, unless it was reaped already (then it
// returns os.ErrProcessDone).
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill sends SIGKILL to the child and waits until it is reaped. Killing a
// child that exited already is not an error.
func (p *Proc) Kill() error {
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill %s: %w", p.name, err)
	}
	_, err := p.Wait()
	return err
}

// Wait waits until the child exited and was reaped, and its stderr was
// read to the end (for at most a grace, should a process the child
// started still hold it open), so that [Proc.Stderr] holds all it wrote;
// it returns how the child ended. err reports only a failure to wait, not
// a non-zero exit or a signal. Every call returns the same.
func (p *Proc) Wait() (*os.ProcessState, error) {
	<-p.exited
	select {
	case <-p.stderrRead:
	case <-time.After(grace):
	}
	return p.cmd.ProcessState, p.waitErr
}

// State returns how the child ended, or nil while it runs.
func (p *Proc) State() *os.ProcessState {
	select {
	case <-p.exited:
		return p.cmd.ProcessState
	default:
		return nil
	}
}

// Done is closed when the child was reaped, its stdout was read to the end
// (every line delivered, or dropped after the delivery stopped) and its
// stderr too, or the grace for it passed.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Close kills the child if it still runs and reaps it, stops the delivery
// on [Proc.Lines] (an [Options.OnLine] function gets the lines the child
// wrote before it died), waits for its output to end (at most a grace of
// two seconds for pipes a grandchild holds) and releases the pipes. It
// returns Kill's error; later calls return the same.
func (p *Proc) Close() error {
	p.closed.Do(func() {
		p.closeErr = p.Kill()
		p.stopped.Do(func() { close(p.stop) })
		for _, end := range []struct {
			eof chan struct{}
			f   *os.File
		}{{p.read, p.stdout}, {p.stderrRead, p.stderr}} {
			select {
			case <-end.eof:
			case <-time.After(grace):
				_ = end.f.Close() // ends the read
				<-end.eof
			}
		}
		<-p.done
		closeAll(p.stdin, p.stdout, p.stderr)
	})
	return p.closeErr
}

// hand delivers a line on Lines until Close stops the delivery.
func (p *Proc) hand(line string) bool {
	select {
	case p.lines <- line:
		return true
	case <-p.stop:
		return false
	}
}

// readLines delivers stdout lines until stdout ends or deliver says stop,
// then reads the rest and drops it.
func (p *Proc) readLines(deliver func(string) bool, maxLine int) {
	defer close(p.read)
	sc := bufio.NewScanner(p.stdout)
	sc.Buffer(nil, maxLine)
	for sc.Scan() {
		if !deliver(sc.Text()) {
			break
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		p.readErr = err
	}
	if p.lines != nil {
		close(p.lines)
	}
	_, _ = io.Copy(io.Discard, p.stdout)
}

// reap waits for the child's exit, so it never lingers as a zombie.
func (p *Proc) reap() {
	defer close(p.exited)
	var exit *exec.ExitError
	if err := p.cmd.Wait(); err != nil && !errors.As(err, &exit) {
		p.waitErr = fmt.Errorf("wait for %s: %w", p.name, err)
	}
}

// stderrNote returns the captured stderr for an error message, or "".
func (p *Proc) stderrNote() string {
	if s := p.Stderr(); s != "" {
		return "; stderr:\n" + s
	}
	return ""
}

// closeAll closes files, ignoring errors: used only to release pipes.
func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
