package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stickhq/stick/internal/pgtest"
	"github.com/stickhq/stick/internal/testproc"
)

// stickBin is the built stick binary the tests run as a user would.
var stickBin string

func TestMain(m *testing.M) {
	cleanup := func() {}
	if os.Getenv("STICK_BIN") == "" && os.Getenv("STICK_TESTPROC_HELPER") == "" {
		dir, err := os.MkdirTemp("", "stick-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		bin := filepath.Join(dir, "stick")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/stickhq/stick/cmd/stick").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building stick: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		os.Setenv("STICK_BIN", bin)
		cleanup = func() { os.RemoveAll(dir) }
	}
	stickBin = os.Getenv("STICK_BIN")
	stopPG := pgtest.Start()
	testproc.Main(m, cleanup, stopPG)
}

// binResult is what one run of the built binary printed and returned.
type binResult struct {
	code           int
	stdout, stderr string
}

// runBin runs the built stick binary with args in dir (the test's working
// directory when empty), with the test process's environment plus env.
func runBin(t testing.TB, dir string, env []string, args ...string) binResult {
	t.Helper()
	cmd := exec.Command(stickBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run stick %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return binResult{code: code, stdout: out.String(), stderr: errb.String()}
}
