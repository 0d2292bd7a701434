package childproc_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/childproc"
	"github.com/stickhq/stick/internal/reexec"
)

// safety bounds waits that would otherwise hang a broken test.
const safety = 10 * time.Second

// roles are the children the tests start: this test binary again.
var roles = map[string]func(args []string) int{
	// echo prints its arguments, says so on stderr and exits 3.
	"echo": func(args []string) int {
		fmt.Println(strings.Join(args, " "))
		fmt.Fprintln(os.Stderr, "echo: done")
		return 3
	},
	// cat answers every line of its input.
	"cat": func([]string) int {
		for sc := bufio.NewScanner(os.Stdin); sc.Scan(); {
			fmt.Println("got " + sc.Text())
		}
		return 0
	},
	// count prints the numbers below its argument, one a line.
	"count": func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		w := bufio.NewWriter(os.Stdout)
		for i := range n {
			fmt.Fprintln(w, i)
		}
		_ = w.Flush()
		return 0
	},
	// block says it is ready and never ends by itself.
	"block": func([]string) int {
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour)
		}
	},
	// complain writes 64 KiB to stderr, then a last line, and exits 2.
	"complain": func([]string) int {
		w := bufio.NewWriter(os.Stderr)
		for range 1024 {
			fmt.Fprintln(w, strings.Repeat("e", 63))
		}
		fmt.Fprintln(w, "the last words")
		_ = w.Flush()
		return 2
	},
	// long prints a line of 4 KiB, then a short one.
	"long": func([]string) int {
		fmt.Println(strings.Repeat("x", 4096))
		fmt.Println("after")
		return 0
	},
}

func TestMain(m *testing.M) {
	for name, fn := range roles {
		reexec.Register(name, fn)
	}
	reexec.Main()
	os.Exit(m.Run())
}

// start runs role with args under childproc, closed when the test ends.
func start(t *testing.T, o childproc.Options, role string, args ...string) *childproc.Proc {
	t.Helper()
	cmd, err := reexec.Command(context.Background(), role, args...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := childproc.Start(cmd, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// waitDone fails the test unless p's Done closes in time.
func waitDone(t *testing.T, p *childproc.Proc) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(safety):
		t.Fatalf("%s: Done did not close", p)
	}
}

func TestLinesExitAndStderr(t *testing.T) {
	p := start(t, childproc.Options{Name: "echo"}, "echo", "a", "b c")
	if line, err := p.Next(t.Context(), safety); err != nil || line != "a b c" {
		t.Fatalf("Next = %q, %v; want %q", line, err, "a b c")
	}
	if _, err := p.Next(t.Context(), safety); !errors.Is(err, io.EOF) {
		t.Errorf("Next after the last line = %v, want an error wrapping io.EOF", err)
	}
	st, err := p.Wait()
	if err != nil || st.ExitCode() != 3 {
		t.Fatalf("Wait = %v, %v; want exit status 3", st, err)
	}
	waitDone(t, p)
	if got := p.Stderr(); !strings.Contains(got, "echo: done") {
		t.Errorf("Stderr = %q, want it to contain %q", got, "echo: done")
	}
	if got := p.State(); got != st {
		t.Errorf("State = %v, want %v", got, st)
	}
	if !strings.HasPrefix(p.String(), "echo (pid ") {
		t.Errorf("String = %q, want the name and the pid", p.String())
	}
}

// Every line reaches OnLine, in order, before Done closes.
// Once Wait returns, Stderr holds everything the child wrote there, its
// last words included: a test reads why a command failed right after it.
func TestWaitReadsStderrToTheEnd(t *testing.T) {
	for range 20 {
		p := start(t, childproc.Options{Name: "complain", StderrTail: 128 << 10}, "complain")
		st, err := p.Wait()
		if err != nil || st.ExitCode() != 2 {
			t.Fatalf("Wait = %v, %v; want exit status 2", st, err)
		}
		if got := p.Stderr(); !strings.HasSuffix(got, "the last words\n") || len(got) != 1024*64+len("the last words\n") {
			t.Fatalf("Stderr right after Wait has %d bytes and ends %q", len(got), got[max(0, len(got)-20):])
		}
	}
}

func TestOnLineBeforeDone(t *testing.T) {
	var got []string
	p := start(t, childproc.Options{OnLine: func(l string) bool { got = append(got, l); return true }}, "count", "1000")
	waitDone(t, p)
	if len(got) != 1000 || got[0] != "0" || got[999] != "999" {
		t.Fatalf("OnLine got %d lines (%q ... ), want 0 to 999", len(got), got[:min(3, len(got))])
	}
	if p.Lines() != nil {
		t.Error("Lines is not nil although OnLine takes the lines")
	}
}

// OnLine returning false stops the delivery; the child still ends.
func TestOnLineStops(t *testing.T) {
	n := 0
	p := start(t, childproc.Options{OnLine: func(string) bool { n++; return n < 5 }}, "count", "100000")
	waitDone(t, p)
	if n != 5 {
		t.Errorf("OnLine called %d times, want 5", n)
	}
	if st, _ := p.Wait(); !st.Success() {
		t.Errorf("the child ended with %v; a full pipe must not block it", st)
	}
}

func TestSendAndStdin(t *testing.T) {
	p := start(t, childproc.Options{}, "cat")
	if err := p.Send("hello"); err != nil {
		t.Fatal(err)
	}
	if line, err := p.Next(t.Context(), safety); err != nil || line != "got hello" {
		t.Fatalf("Next = %q, %v; want %q", line, err, "got hello")
	}
	if err := p.Stdin().Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := p.Wait(); err != nil || !st.Success() {
		t.Errorf("Wait = %v, %v; want status 0", st, err)
	}
}

func TestNextTimeoutAndContext(t *testing.T) {
	p := start(t, childproc.Options{}, "cat") // says nothing until fed
	if _, err := p.Next(t.Context(), 10*time.Millisecond); !errors.Is(err, childproc.ErrTimeout) {
		t.Errorf("Next of a silent child = %v, want ErrTimeout", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Next(ctx, safety); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with an ended context = %v, want context.Canceled", err)
	}
}

func TestKillReaps(t *testing.T) {
	p := start(t, childproc.Options{}, "block")
	if line, err := p.Next(t.Context(), safety); err != nil || line != "ready" {
		t.Fatalf("Next = %q, %v; want ready", line, err)
	}
	if p.State() != nil {
		t.Error("State of a running child is not nil")
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Errorf("second Kill: %v", err)
	}
	st := p.State()
	if st == nil || st.ExitCode() != -1 {
		t.Fatalf("State after Kill = %v, want killed by a signal", st)
	}
	if runtime.GOOS == "linux" {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.PID())); err == nil {
			t.Errorf("pid %d still present after Kill (not reaped)", p.PID())
		}
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close after Kill: %v", err)
	}
}

// Close ends a child whose lines nobody reads.
func TestCloseUnread(t *testing.T) {
	p := start(t, childproc.Options{}, "count", "100000")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	for range p.Lines() { // closed: the range ends
	}
}

// A line past MaxLine ends the delivery with an error; the rest is dropped.
func TestMaxLine(t *testing.T) {
	p := start(t, childproc.Options{MaxLine: 1024}, "long")
	_, err := p.Next(t.Context(), safety)
	if !errors.Is(err, io.EOF) || !errors.Is(err, bufio.ErrTooLong) {
		t.Fatalf("Next of a long line = %v, want io.EOF and bufio.ErrTooLong", err)
	}
	waitDone(t, p)
}

func TestStartRefusesStreams(t *testing.T) {
	cmd := exec.Command("true")
	cmd.Stdout = io.Discard
	if _, err := childproc.Start(cmd, childproc.Options{}); err == nil {
		t.Error("Start with Stdout set: want an error")
	}
}

func TestTail(t *testing.T) {
	tl := childproc.Tail{Max: 4}
	_, _ = tl.Write([]byte("ab"))
	_, _ = tl.Write([]byte("cdef"))
	if got := tl.String(); got != "cdef" {
		t.Errorf("Tail{Max: 4} = %q, want %q", got, "cdef")
	}
	var zero childproc.Tail
	_, _ = zero.Write(make([]byte, childproc.DefaultTail+10))
	if n := len(zero.String()); n != childproc.DefaultTail {
		t.Errorf("a zero Tail kept %d bytes, want %d", n, childproc.DefaultTail)
	}
}
