// Package reexec runs roles of a program in child processes by starting its
// own executable again, so tools such as stickbench, the chaos soak and
// the tests (through internal/testproc) can measure and kill real
// processes without shipping a second binary.
//
// A program registers its roles with [Register] and calls [Main] first
// thing in main (or TestMain). [Command] builds an exec.Cmd for the current
// executable with the role named in the environment; [Main] in the child
// sees it, removes it from the environment (so the role's own children do
// not run it by accident) and runs the role instead of the program.
package reexec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// RoleEnv names the environment variable that carries the role a
// re-executed program must run. [Main] unsets it in the child, so it does
// not leak to the role's own children.
const RoleEnv = "STICK_REEXEC_ROLE"

var registry struct {
	mu    sync.Mutex
	roles map[string]func(args []string) int
}

// Register adds role name; fn receives the arguments given to [Command] and
// returns the exit code. Call it from init or before [Main]. Registering
// an empty name, a nil function or a name twice panics: it is a
// programming error found at start-up, never caused by input.
func Register(name string, fn func(args []string) int) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.roles == nil {
		registry.roles = make(map[string]func([]string) int)
	}
	if name == "" || fn == nil || registry.roles[name] != nil {
		panic(fmt.Sprintf("reexec.Register(%q): empty, nil or registered twice", name))
	}
	registry.roles[name] = fn
}

// Registered reports whether role name was registered, so a starter can
// refuse a name the child would not know before it starts one.
func Registered(name string) bool {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	return registry.roles[name] != nil
}

// Main returns at once in a process that was not started by [Command].
// In one that was, it runs the role and exits with its code (2 for an
// unknown role).
func Main() {
	name, ok := os.LookupEnv(RoleEnv)
	if !ok {
		return
	}
	_ = os.Unsetenv(RoleEnv)
	registry.mu.Lock()
	fn := registry.roles[name]
	registry.mu.Unlock()
	if fn == nil {
		fmt.Fprintf(os.Stderr, "reexec: no role named %q\n", name)
		os.Exit(2)
	}
	os.Exit(fn(os.Args[1:]))
}

// Command returns a command that runs role name of the current executable
// with args. The caller sets its standard streams and starts it.
func Command(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this program's executable to run %s: %w", name, err)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), RoleEnv+"="+name, raceEnv())
	return cmd, nil
}

// raceEnv returns GORACE with atexit_sleep_ms=0 added: a binary built with
// -race otherwise sleeps a second when it exits with status 0, which makes
// every role slow to end. Other options the user set are kept.
func raceEnv() string {
	opts := os.Getenv("GORACE")
	if strings.Contains(opts, "atexit_sleep_ms=") {
		return "GORACE=" + opts
	}
	return "GORACE=" + strings.TrimSpace(opts+" atexit_sleep_ms=0")
}
