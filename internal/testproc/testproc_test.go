package testproc_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/internal/testproc"
)

// safety bounds waits that would otherwise hang a broken test.
const safety = 10 * time.Second

func TestMain(m *testing.M) {
	testproc.Register("echo", func(args []string) int {
		fmt.Println(strings.Join(args, " "))
		fmt.Fprintln(os.Stderr, "echo: done")
		return 3
	})
	testproc.Register("env", func(args []string) int {
		for _, k := range args {
			v, ok := os.LookupEnv(k)
			fmt.Printf("%s=%q %v\n", k, v, ok)
		}
		return 0
	})
	testproc.Register("block", func(args []string) int {
		fmt.Println("ready")
		for {
			time.Sleep(time.Hour)
		}
	})
	testproc.Register("stdin", func(args []string) int {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Println("got " + sc.Text())
		}
		return 0
	})
	testproc.Main(m)
}

func TestEchoExitCode(t *testing.T) {
	p := testproc.Start(t, "echo", "a", "b c")
	line, err := p.ReadLine(safety)
	if err != nil {
		t.Fatal(err)
	}
	if line != "a b c" {
		t.Errorf("line = %q, want %q", line, "a b c")
	}
	if _, err := p.ReadLine(safety); err == nil {
		t.Error("ReadLine after the last line: want an error at EOF")
	}
	code, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 {
		t.Errorf("exit code = %d, want 3", code)
	}
	if got := p.Stderr(); !strings.Contains(got, "echo: done") {
		t.Errorf("stderr = %q, want it to contain %q", got, "echo: done")
	}
	if code2, err := p.Wait(); code2 != 3 || err != nil {
		t.Errorf("second Wait = %d, %v; want 3, nil", code2, err)
	}
}

func TestKillBlockedHelper(t *testing.T) {
	p := testproc.Start(t, "block")
	if line, err := p.ReadLine(safety); err != nil || line != "ready" {
		t.Fatalf("ReadLine = %q, %v; want ready", line, err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Errorf("second Kill: %v", err)
	}
	code, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if code != -1 {
		t.Errorf("exit code = %d, want -1 (killed by a signal)", code)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.PID())); err == nil && isLinux() {
		t.Errorf("pid %d still present after Kill (not reaped)", p.PID())
	}
}

func TestEnvDoesNotLeak(t *testing.T) {
	p := testproc.StartEnv(t, []string{"TESTPROC_EXTRA=x"}, "env", "TESTPROC_EXTRA", "STICK_REEXEC_ROLE")
	want := []string{`TESTPROC_EXTRA="x" true`, `STICK_REEXEC_ROLE="" false`}
	for _, w := range want {
		line, err := p.ReadLine(safety)
		if err != nil {
			t.Fatal(err)
		}
		if line != w {
			t.Errorf("line = %q, want %q", line, w)
		}
	}
	if code, err := p.Wait(); code != 0 || err != nil {
		t.Errorf("Wait = %d, %v; want 0, nil", code, err)
	}
}

func TestStdin(t *testing.T) {
	p := testproc.Start(t, "stdin")
	if _, err := fmt.Fprintln(p.Stdin(), "hello"); err != nil {
		t.Fatal(err)
	}
	if line, err := p.ReadLine(safety); err != nil || line != "got hello" {
		t.Fatalf("ReadLine = %q, %v; want %q", line, err, "got hello")
	}
	if err := p.Stdin().Close(); err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); code != 0 || err != nil {
		t.Errorf("Wait = %d, %v; want 0, nil", code, err)
	}
}

func TestReadLineTimeout(t *testing.T) {
	p := testproc.Start(t, "stdin") // prints nothing until fed
	if _, err := p.ReadLine(10 * time.Millisecond); err == nil {
		t.Error("ReadLine with no output: want a timeout error")
	}
}

func TestCommand(t *testing.T) {
	cmd := testproc.Command(t, "echo", "x")
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("exit code = %d (%v), want 3", code, err)
	}
	if string(out) != "x\n" {
		t.Errorf("output = %q, want %q", out, "x\n")
	}
}

func isLinux() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}
