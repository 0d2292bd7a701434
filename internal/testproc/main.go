package testproc

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// helperEnv names the helper a re-executed test binary must run. Main
// unsets it in the child, so it does not leak to grandchildren.
const helperEnv = "STICK_TESTPROC_HELPER"

// registry holds the registered helpers and whether Main runs the tests.
var registry struct {
	mu      sync.Mutex
	helpers map[string]func(args []string) int
	errs    []string // registration mistakes, reported by Start
	running bool     // Main is running the tests
}

// Register adds a helper named name; call it from init or from TestMain
// before Main. fn receives the arguments passed to [Start] and returns
// the process's exit code. Mistakes (empty name, nil fn, a name used
// twice) make every later Start fail the test.
func Register(name string, fn func(args []string) int) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	switch {
	case name == "" || fn == nil:
		registry.errs = append(registry.errs, fmt.Sprintf("Register(%q): empty name or nil function", name))
		return
	case registry.helpers[name] != nil:
		registry.errs = append(registry.errs, fmt.Sprintf("Register(%q): name registered twice", name))
		return
	}
	if registry.helpers == nil {
		registry.helpers = make(map[string]func([]string) int)
	}
	registry.helpers[name] = fn
}

// Main must be called from a test package's TestMain. When the process was
// started by [Start], it runs the named helper and exits with its return
// code; otherwise it runs the tests (m.Run) and exits. Before running a
// helper it removes STICK_TESTPROC_HELPER from the environment, so
// processes the helper starts do not run helpers themselves; a helper that
// wants that must pass the variable on explicitly. The cleanup functions
// run after the tests, before the process exits (a deferred call in
// TestMain would not run).
func Main(m *testing.M, cleanup ...func()) {
	name, ok := os.LookupEnv(helperEnv)
	if !ok {
		registry.mu.Lock()
		registry.running = true
		registry.mu.Unlock()
		code := m.Run()
		for _, fn := range cleanup {
			fn()
		}
		os.Exit(code)
	}
	_ = os.Unsetenv(helperEnv)
	registry.mu.Lock()
	fn := registry.helpers[name]
	registry.mu.Unlock()
	if fn == nil {
		fmt.Fprintf(os.Stderr, "testproc: no helper named %q\n", name)
		os.Exit(2)
	}
	os.Exit(fn(os.Args[1:]))
}

// checkHelper returns why helper name cannot be started, or "".
func checkHelper(name string) string {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	switch {
	case len(registry.errs) > 0:
		return fmt.Sprint(registry.errs)
	case !registry.running:
		// Without Main in the child, the test binary would run all tests
		// again, including the one that starts it.
		return "testproc.Main is not running the tests; call it from TestMain"
	case registry.helpers[name] == nil:
		return fmt.Sprintf("no helper named %q; Register it first", name)
	}
	return ""
}
