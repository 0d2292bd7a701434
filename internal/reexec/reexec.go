// Package reexec runs roles of a program in child processes by starting its
// own executable again, so tools such as stickbench can measure and kill
// real processes without shipping a second binary.
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
	"sync"
)

// roleEnv names the role a re-executed program must run.
const roleEnv = "STICK_REEXEC_ROLE"

var registry struct {
	mu    sync.Mutex
	roles map[string]func(args []string) int
}

// Register adds role name; fn receives the arguments given to [Command] and
// returns the exit code. Registering a name twice panics: it is a
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

// Main returns at once in a process that was not started by [Command].
// In one that was, it runs the role and exits with its code (2 for an
// unknown role).
func Main() {
	name, ok := os.LookupEnv(roleEnv)
	if !ok {
		return
	}
	_ = os.Unsetenv(roleEnv)
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
	cmd.Env = append(os.Environ(), roleEnv+"="+name)
	return cmd, nil
}
