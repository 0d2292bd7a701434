package testproc

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/stickhq/stick/internal/reexec"
)

// running says whether Main is running the tests of this binary.
var running struct {
	mu  sync.Mutex
	yes bool
}

// Register adds a helper named name; call it from init or from TestMain
// before Main. fn receives the arguments passed to [Start] and returns the
// process's exit code. Helpers are roles of package reexec: an empty name,
// a nil fn or a name used twice panics at start-up.
func Register(name string, fn func(args []string) int) { reexec.Register(name, fn) }

// Main must be called from a test package's TestMain. When the process was
// started by [Start], it runs the named helper and exits with its return
// code; otherwise it runs the tests (m.Run) and exits. Before running a
// helper it removes the helper's name ([reexec.RoleEnv]) from the
// environment, so processes the helper starts do not run helpers
// themselves; a helper that wants that must pass the variable on
// explicitly. The cleanup functions run after the tests, before the
// process exits (a deferred call in TestMain would not run).
func Main(m *testing.M, cleanup ...func()) {
	reexec.Main()
	running.mu.Lock()
	running.yes = true
	running.mu.Unlock()
	code := m.Run()
	for _, fn := range cleanup {
		fn()
	}
	os.Exit(code)
}

// checkHelper returns why helper name cannot be started, or "".
func checkHelper(name string) string {
	running.mu.Lock()
	defer running.mu.Unlock()
	switch {
	case !running.yes:
		// Without Main in the child, the test binary would run all tests
		// again, including the one that starts it.
		return "testproc.Main is not running the tests; call it from TestMain"
	case !reexec.Registered(name):
		return fmt.Sprintf("no helper named %q; Register it first", name)
	}
	return ""
}
