package identity

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stickhq/stick/procid"
)

// wrappers are commands that run another command and end with it: their
// process stands for nothing, so the walk to an invocation's anchor passes
// through them.
var wrappers = map[string]bool{
	"env": true, "timeout": true, "nohup": true, "stdbuf": true, "nice": true, "ionice": true,
	"setsid": true, "time": true, "sudo": true, "doas": true, "xargs": true, "go": true,
}

// shells are command names of shells. A harness runs each command through
// a fresh shell that exits with it, so for a harness-run invocation the
// walk passes through shells too; a person's shell is their anchor.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "fish": true, "dash": true, "ksh": true, "mksh": true,
	"tcsh": true, "csh": true, "busybox": true, "pwsh": true, "nu": true, "elvish": true, "xonsh": true,
	"powershell": true, "cmd": true,
}

// anchor finds the process an invocation belongs to: for a command a
// harness runs, the harness itself (the nearest ancestor that is neither a
// shell nor a wrapper); for a person, their terminal's shell: the leader of
// the session when it is an ancestor (so a subshell, a script or make in
// between does not count), else the nearest ancestor that is not a wrapper.
// A holder started by the invocation lives as long as its anchor, and a
// harness-run invocation shares the harness's identity with the harness's
// own 'stick mcp'.
func anchor(f Facts, byHarness bool) (procid.Ancestor, error) {
	f = f.local()
	chain, err := f.Ancestors()
	if err != nil {
		return procid.Ancestor{}, err
	}
	if sid, ok := f.SessionLeader(); ok && !byHarness {
		for _, a := range chain {
			if a.PID == sid {
				return a, nil
			}
		}
	}
	for _, a := range chain {
		name := strings.TrimSuffix(strings.ToLower(filepath.Base(a.Name)), ".exe")
		name = strings.TrimPrefix(name, "-") // login shells are named "-bash"
		if wrappers[name] || (byHarness && shells[name]) {
			continue
		}
		return a, nil
	}
	if len(chain) > 0 {
		return chain[len(chain)-1], nil
	}
	return procid.Ancestor{}, fmt.Errorf("this process has no parent but init")
}

// HarnessProcess is the harness that runs this process, read from f: the
// nearest ancestor that is neither a shell nor a wrapper, as a command the
// harness runs finds it. A hook the harness runs through a shell finds the
// same process its 'stick mcp' records for its members.
func HarnessProcess(f Facts) (procid.Ancestor, error) {
	return anchor(f, true)
}
